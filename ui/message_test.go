package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"engram/ui/internal/markdown"
)

// renderWindow shows objs in a test window of the chat pane's width.
func renderWindow(t *testing.T, objs ...fyne.CanvasObject) fyne.Window {
	t.Helper()
	w := test.NewWindow(container.NewVBox(objs...))
	w.Resize(fyne.NewSize(560, 320))
	t.Cleanup(w.Close)
	relayout(w.Content())
	return w
}

// relayout lays the containers under o out again from the top, as the
// app's driver does on the next frame once wrapped text knows its width.
func relayout(o fyne.CanvasObject) {
	for range 2 {
		for _, x := range test.LaidOutObjects(o) {
			if c, ok := x.(*fyne.Container); ok && c.Layout != nil {
				c.Layout.Layout(c.Objects, c.Size())
			}
		}
	}
}

// TestUserMessageGolden pins a user's message of two lines: it shows both,
// one under the other.
func TestUserMessageGolden(t *testing.T) {
	test.NewTempApp(t)
	clip := markdown.Clipboard{Set: func(string) {}}
	v := newMessageView(&msgState{Message: Message{Role: "user", Text: "line one\nline two"}}, messageActions{clip: clip})
	w := renderWindow(t, v.root)
	test.AssertRendersToMarkup(t, "markdown_user_two_lines.xml", w.Canvas())
}
