package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// drawerWidth is the window width under which the inspector is a drawer
// over the chat instead of a column beside it.
const drawerWidth = 760

// drawerLayout lays the drawer's background and the inspector at the right
// of the chat pane, as wide as the inspector needs (at least 360 px) and
// never wider than the pane.
type drawerLayout struct{}

// MinSize is nothing: the drawer lies over the chat.
func (drawerLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }

// Layout places the objects at the right, full height.
func (drawerLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	var w float32 = 360
	for _, o := range objs {
		w = max(w, o.MinSize().Width)
	}
	w = min(w, size.Width)
	for _, o := range objs {
		o.Move(fyne.NewPos(size.Width-w, 0))
		o.Resize(fyne.NewSize(w, size.Height))
	}
}

// setDrawer makes the inspector a drawer over the chat (on) or the column
// beside it. Becoming a drawer, it closes, so that a narrow window opens
// on the chat; Memories opens it.
func (u *UI) setDrawer(on bool) {
	if on == u.drawer {
		return
	}
	u.drawer = on
	if on {
		bg := canvas.NewRectangle(theme.Color(theme.ColorNameBackground))
		bg.StrokeColor, bg.StrokeWidth = theme.Color(theme.ColorNameSeparator), 1
		u.split.Trailing = u.splitGap
		u.drawerBox.Objects = []fyne.CanvasObject{bg, u.insp.root}
		u.body.Objects = []fyne.CanvasObject{u.split, u.drawerBox}
		if u.inspectorOpen {
			u.inspectorOpen = false
			u.bar.inspectorShown(false)
		}
	} else {
		u.drawerBox.Objects = nil
		u.split.Trailing = u.insp.root
		u.body.Objects = []fyne.CanvasObject{u.split}
	}
	u.showPanels()
}
