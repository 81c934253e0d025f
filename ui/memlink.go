package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// memLink is a recalled or pinned memory's row in an answer's disclosure
// that opens the memory in the inspector when tapped (the pointer turns to
// a hand over it).
type memLink struct {
	widget.BaseWidget
	content fyne.CanvasObject
	tapped  func()
}

func newMemLink(content fyne.CanvasObject, tapped func()) *memLink {
	l := &memLink{content: content, tapped: tapped}
	l.ExtendBaseWidget(l)
	return l
}

// Tapped implements fyne.Tappable.
func (l *memLink) Tapped(*fyne.PointEvent) { l.tapped() }

// Cursor implements desktop.Cursorable.
func (l *memLink) Cursor() desktop.Cursor { return desktop.PointerCursor }

// CreateRenderer implements fyne.Widget.
func (l *memLink) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(l.content)
}
