package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// narrowLayout lays the window out: under drawerWidth the inspector becomes
// a drawer over the chat (drawer.go), and the chat list collapses when the
// window is too narrow for it beside the chat pane and the inspector, so
// the window can be as narrow as the toolbar.
type narrowLayout struct {
	u      *UI
	noList bool // the chat list is collapsed
}

// MinSize is the size of the toolbar over the chat pane and the inspector.
func (l *narrowLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	u := l.u
	bar := u.bar.root.MinSize()
	body := u.body.MinSize()
	return fyne.NewSize(max(bar.Width, body.Width), bar.Height+body.Height)
}

// Layout collapses the chat list when it does not fit in size and lays the
// rest out.
func (l *narrowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	u := l.u
	u.setDrawer(size.Width < drawerWidth)
	// The list needs room beside the chat and the inspector, even while
	// the inspector is a drawer: the drawer may open over the chat.
	need := u.list.root.MinSize().Width + theme.Padding()*2 + u.body.MinSize().Width
	if u.drawer {
		need += u.insp.root.MinSize().Width
	}
	if noList := size.Width < need; noList != l.noList {
		l.noList = noList
		setVisible(u.list.root, !noList)
		u.left.Refresh()
	}
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// showPanels shows the inspector (or its drawer) as the Memories button
// asks.
func (u *UI) showPanels() {
	setVisible(u.insp.root, u.inspectorOpen)
	setVisible(u.drawerBox, u.drawer && u.inspectorOpen)
	u.split.Refresh()
	u.body.Refresh()
}

// setVisible shows or hides o.
func setVisible(o fyne.CanvasObject, on bool) {
	if on {
		o.Show()
	} else {
		o.Hide()
	}
}

// tabsLayout lays out two tabs side by side: in equal halves when both fit,
// else each as wide as it needs with the second taking what is left (a
// project's long name does not widen the column).
type tabsLayout struct{}

// MinSize is the two tabs' own widths side by side.
func (tabsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	a, b := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(a.Width+theme.Padding()+b.Width, max(a.Height, b.Height))
}

// Layout places the tabs.
func (tabsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	first := (size.Width - pad) / 2
	if need := objs[1].MinSize().Width; size.Width-pad-first < need {
		first = max(objs[0].MinSize().Width, size.Width-pad-need)
	}
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(first, size.Height))
	objs[1].Move(fyne.NewPos(first+pad, 0))
	objs[1].Resize(fyne.NewSize(size.Width-pad-first, size.Height))
}

// reviewShare is the most of the inspector's middle (what the bars above
// and below leave) that the review panel takes, however much it holds: the
// list or a memory's detail keeps the rest.
const reviewShare = 0.5

// columnLayout stacks the inspector's column, a padding apart: the bar on
// top (tabs, search, filters), the middle (the list or a memory's detail),
// the review panel if there is one, and the bar at the bottom (undo, trash,
// the editor). The bars take their minimum heights; the review panel, a
// scroll, takes what its content needs up to reviewShare of what the bars
// leave, and the middle the rest. Its objects are the top bar, the middle,
// the bottom bar and, optionally, the review panel's *container.Scroll.
type columnLayout struct{}

// MinSize is the widest part's width by the parts' minimum heights.
func (columnLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	n := 0
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		if m.Height > 0 {
			s.Height += m.Height
			n++
		}
	}
	if n > 1 {
		s.Height += float32(n-1) * theme.Padding()
	}
	return s
}

// Layout places the parts in size.
func (columnLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	height := func(o fyne.CanvasObject) float32 {
		if !o.Visible() {
			return 0
		}
		return o.MinSize().Height
	}
	gap := func(h float32) float32 {
		if h > 0 {
			return h + pad
		}
		return 0
	}
	top, mid, bottom := objs[0], objs[1], objs[2]
	topH, bottomH := height(top), height(bottom)
	rest := size.Height - gap(topH) - gap(bottomH)
	var review *container.Scroll
	var reviewH float32
	if len(objs) > 3 && objs[3].Visible() {
		review = objs[3].(*container.Scroll)
		if review.Content != nil {
			reviewH = min(review.Content.MinSize().Height, max((rest-pad)*reviewShare, review.MinSize().Height))
		}
	}
	midH := max(rest-gap(reviewH), mid.MinSize().Height)
	y := float32(0)
	place := func(o fyne.CanvasObject, h float32) {
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
		y += gap(h)
	}
	place(top, topH)
	place(mid, midH)
	if review != nil {
		place(review, reviewH)
	}
	bottom.Move(fyne.NewPos(0, size.Height-bottomH))
	bottom.Resize(fyne.NewSize(size.Width, bottomH))
}
