package look

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// TightVBox stacks objects vertically with no gap, for two-line rows.
type TightVBox struct{}

// MinSize is the widest object's width by the objects' heights, each less
// a padding.
func (TightVBox) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height - theme.Padding()
	}
	return s
}

// Layout stacks objs at their minimum heights, each lifted by half a
// padding.
func (TightVBox) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y := float32(0)
	for _, o := range objs {
		h := o.MinSize().Height
		o.Move(fyne.NewPos(0, y-theme.Padding()/2))
		o.Resize(fyne.NewSize(size.Width, h))
		y += h - theme.Padding()
	}
}
