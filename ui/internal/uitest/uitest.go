// Package uitest holds what the window's tests and the renderer's tests
// share: a test window of the chat pane's width, laid out as the app's
// driver lays it out.
package uitest

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// RenderWindow shows objs in a test window of the chat pane's width.
func RenderWindow(t *testing.T, objs ...fyne.CanvasObject) fyne.Window {
	t.Helper()
	w := test.NewWindow(container.NewVBox(objs...))
	w.Resize(fyne.NewSize(560, 320))
	t.Cleanup(w.Close)
	Relayout(w.Content())
	return w
}

// Relayout lays the containers under o out again from the top, as the
// app's driver does on the next frame once wrapped text knows its width.
func Relayout(o fyne.CanvasObject) {
	for range 2 {
		for _, x := range test.LaidOutObjects(o) {
			if c, ok := x.(*fyne.Container); ok && c.Layout != nil {
				c.Layout.Layout(c.Objects, c.Size())
			}
		}
	}
}
