package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// flowLayout places objects left to right at their minimum sizes, a
// padding apart, and starts a new row when the width runs out, so that a
// row of chips wraps instead of hiding the ones that do not fit. Each object
// is centred vertically in its row.
//
// Fyne asks a layout its minimum size before it lays it out, so the
// height reported is the rows' at the width last laid out (one row before
// the first layout); when the rows change, the window's next frame sees the
// new minimum and lays the parent out again. The minimum width is the widest
// object's, so the column can narrow down to it.
type flowLayout struct {
	width float32 // the width last laid out; 0 before the first layout
}

// MinSize is the widest object's width by the height of the rows at the
// width last laid out.
func (l *flowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		if o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	width := l.width
	if width <= 0 {
		width = float32(1 << 30) // one row
	}
	return fyne.NewSize(w, flowHeight(flowRows(objs, width)))
}

// Layout places the objects in rows as wide as size.
func (l *flowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	pad := theme.Padding()
	var y float32
	for _, r := range flowRows(objs, size.Width) {
		x := float32(0)
		for _, o := range r.objs {
			m := o.MinSize()
			m.Width = min(m.Width, size.Width)
			o.Move(fyne.NewPos(x, y+(r.height-m.Height)/2))
			o.Resize(m)
			x += m.Width + pad
		}
		y += r.height + pad
	}
}

// flowRow is one row of a flowLayout: its objects and its height.
type flowRow struct {
	objs   []fyne.CanvasObject
	height float32
}

// flowRows breaks the visible objects into rows no wider than width (an
// object wider than width has a row of its own).
func flowRows(objs []fyne.CanvasObject, width float32) []flowRow {
	pad := theme.Padding()
	var rows []flowRow
	var x float32
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		if len(rows) == 0 || x+m.Width > width {
			rows = append(rows, flowRow{})
			x = 0
		}
		r := &rows[len(rows)-1]
		r.objs = append(r.objs, o)
		r.height = max(r.height, m.Height)
		x += m.Width + pad
	}
	return rows
}

// flowHeight is the height of rows stacked a padding apart.
func flowHeight(rows []flowRow) float32 {
	var h float32
	for k, r := range rows {
		if k > 0 {
			h += theme.Padding()
		}
		h += r.height
	}
	return h
}
