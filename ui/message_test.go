package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"engram/ui/internal/markdown"
	"engram/ui/internal/uitest"
)

// TestUserMessageGolden pins a user's message of two lines: it shows both,
// one under the other.
func TestUserMessageGolden(t *testing.T) {
	test.NewTempApp(t)
	clip := markdown.Clipboard{Set: func(string) {}}
	v := newMessageView(&msgState{Message: Message{Role: "user", Text: "line one\nline two"}}, messageActions{clip: clip})
	w := uitest.RenderWindow(t, v.root)
	test.AssertRendersToMarkup(t, "markdown_user_two_lines.xml", w.Canvas())
}
