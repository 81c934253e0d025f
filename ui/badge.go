package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"engram/memory"
)

// kindColors tints each kind's badge.
var kindColors = map[memory.Kind]color.NRGBA{
	memory.KindPreference: {R: 0x8e, G: 0x44, B: 0xad, A: 0xff},
	memory.KindCorrection: {R: 0xd3, G: 0x54, B: 0x00, A: 0xff},
	memory.KindLesson:     {R: 0x27, G: 0x8c, B: 0x4f, A: 0xff},
	memory.KindFact:       {R: 0x2e, G: 0x6d, B: 0xb4, A: 0xff},
}

// badge is a small rounded label in a kind's colour.
type badge struct {
	bg   *canvas.Rectangle
	text *canvas.Text
	root *fyne.Container
}

func newBadge() *badge {
	b := &badge{bg: canvas.NewRectangle(color.Transparent), text: canvas.NewText("", color.White)}
	b.bg.CornerRadius = 4
	b.text.TextSize = theme.CaptionTextSize()
	b.text.TextStyle.Bold = true
	b.text.Alignment = fyne.TextAlignCenter
	pad := container.New(&badgeLayout{}, b.bg, b.text)
	b.root = container.NewCenter(pad)
	return b
}

func (b *badge) set(k memory.Kind) {
	c, ok := kindColors[k]
	if !ok {
		c = color.NRGBA{R: 0x77, G: 0x77, B: 0x77, A: 0xff}
	}
	b.bg.FillColor = c
	b.text.Text = kindName(k)
	b.bg.Refresh()
	b.text.Refresh()
}

// kindBadge returns a badge showing k.
func kindBadge(k memory.Kind) fyne.CanvasObject {
	b := newBadge()
	b.set(k)
	return b.root
}

// badgeLayout sizes the badge to a fixed width (the longest kind) so rows
// line up.
type badgeLayout struct{}

func (badgeLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	t := fyne.MeasureText(kindName(memory.KindPreference), theme.CaptionTextSize(), fyne.TextStyle{Bold: true})
	return fyne.NewSize(t.Width+10, t.Height+4)
}

func (badgeLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
}
