package markdown

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	extast "github.com/yuin/goldmark/extension/ast"
)

// minColumn is the narrowest a table column is squeezed to before its
// cells wrap no further.
const minColumn = 48

// table renders a GFM table as a grid: the header row bold on a tint,
// columns as wide as their widest cell and aligned as the delimiter row
// says; when the grid is wider than the message, the wide columns shrink
// and their cells wrap.
func (r *mdRender) table(t *extast.Table) fyne.CanvasObject {
	cols := len(t.Alignments)
	var cells []fyne.CanvasObject
	rows := 0
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		_, header := row.(*extast.TableHeader)
		col := 0
		for cell := row.FirstChild(); cell != nil && col < cols; cell = cell.NextSibling() {
			st := plainStyle()
			st.TextStyle.Bold = header
			cells = append(cells, tableCell(r.inlines(cell, st, false), t.Alignments[col]))
			col++
		}
		for ; col < cols; col++ {
			cells = append(cells, tableCell(nil, extast.AlignNone))
		}
		rows++
	}
	return newTableGrid(cols, rows, cells)
}

// tableCell is one cell's text aligned as its column.
func tableCell(segs []widget.RichTextSegment, a extast.Alignment) *widget.RichText {
	align := fyne.TextAlignLeading
	switch a {
	case extast.AlignCenter:
		align = fyne.TextAlignCenter
	case extast.AlignRight:
		align = fyne.TextAlignTrailing
	}
	for _, s := range segs {
		switch s := s.(type) {
		case *widget.TextSegment:
			s.Style.Alignment = align
		case *widget.HyperlinkSegment:
			s.Alignment = align
		}
	}
	if len(segs) == 0 {
		segs = []widget.RichTextSegment{&widget.TextSegment{Style: plainStyle()}}
	}
	return widget.NewRichText(segs...)
}

// newTableGrid lays out cols×rows cells (row by row) on a frame with
// the first row tinted.
func newTableGrid(cols, rows int, cells []fyne.CanvasObject) *fyne.Container {
	frame := canvas.NewRectangle(theme.Color(theme.ColorNameBackground))
	frame.StrokeColor = theme.Color(theme.ColorNameSeparator)
	frame.StrokeWidth = 1
	head := canvas.NewRectangle(theme.Color(theme.ColorNameHeaderBackground))
	l := &tableLayout{cols: cols, rows: rows, natural: make([]float32, cols)}
	for i, c := range cells {
		rt := c.(*widget.RichText)
		l.natural[i%cols] = max(l.natural[i%cols], rt.MinSize().Width)
		rt.Wrapping = fyne.TextWrapWord
	}
	lines := make([]fyne.CanvasObject, rows-1+cols-1) // between the rows, then between the columns
	for i := range lines {
		lines[i] = canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))
	}
	objs := append([]fyne.CanvasObject{frame, head}, lines...)
	return container.New(l, append(objs, cells...)...)
}

// tableLayout places a table's frame, header tint, grid lines and cells
// (in this order in the objects). It remembers the width it was last laid
// out at, so that its minimum height is that of the cells wrapped at it.
type tableLayout struct {
	cols, rows int
	natural    []float32 // each column's width unwrapped
	width      float32   // the width last laid out; 0 before
}

// widths are the column widths at width w: natural when they fit, else
// shrunk in proportion (none below minColumn or its natural width).
func (l *tableLayout) widths(w float32) []float32 {
	out := make([]float32, l.cols)
	var total float32
	for _, n := range l.natural {
		total += n
	}
	for i, n := range l.natural {
		out[i] = n
		if total > w && w > 0 {
			out[i] = max(min(n, minColumn), n*w/total)
		}
	}
	return out
}

// heights sizes the cells to the column widths and returns each row's
// height.
func (l *tableLayout) heights(cells []fyne.CanvasObject, ws []float32) []float32 {
	hs := make([]float32, l.rows)
	for i, c := range cells {
		row, col := i/l.cols, i%l.cols
		if c.Size().Width != ws[col] {
			c.Resize(fyne.NewSize(ws[col], c.MinSize().Height))
		}
		hs[row] = max(hs[row], c.MinSize().Height)
	}
	return hs
}

// split returns the cells among objs, and the lines before them.
func (l *tableLayout) split(objs []fyne.CanvasObject) (lines, cells []fyne.CanvasObject) {
	n := len(objs) - l.cols*l.rows
	return objs[2:n], objs[n:]
}

// MinSize is the table at the width it was last laid out at.
func (l *tableLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	_, cells := l.split(objs)
	w := l.width
	if w == 0 {
		for _, n := range l.natural {
			w += n
		}
	}
	var minW, h float32
	for _, n := range l.natural {
		minW += min(n, minColumn)
	}
	for _, rh := range l.heights(cells, l.widths(w)) {
		h += rh
	}
	return fyne.NewSize(minW, h)
}

// Layout places the grid at the top left, as wide as its columns.
func (l *tableLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	lines, cells := l.split(objs)
	ws := l.widths(size.Width)
	hs := l.heights(cells, ws)
	var total fyne.Size
	for _, w := range ws {
		total.Width += w
	}
	for _, h := range hs {
		total.Height += h
	}
	objs[0].Resize(total)
	objs[0].Move(fyne.NewPos(0, 0))
	objs[1].Resize(fyne.NewSize(total.Width, hs[0]))
	objs[1].Move(fyne.NewPos(0, 0))
	var y float32
	for row, h := range hs {
		x := float32(0)
		for col, w := range ws {
			c := cells[row*l.cols+col]
			c.Move(fyne.NewPos(x, y))
			c.Resize(fyne.NewSize(w, h))
			x += w
		}
		y += h
		if row < l.rows-1 {
			lines[row].Move(fyne.NewPos(0, y))
			lines[row].Resize(fyne.NewSize(total.Width, 1))
		}
	}
	x := float32(0)
	for col, w := range ws[:l.cols-1] {
		x += w
		line := lines[l.rows-1+col]
		line.Move(fyne.NewPos(x, 0))
		line.Resize(fyne.NewSize(1, total.Height))
	}
}
