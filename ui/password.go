package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// dialogPasswordEntry is a password field of a dialog (see dialogEntry):
// Esc in it closes the dialog, and its eye shows or hides the text, as
// Fyne's password entry does (whose type cannot take Esc).
func (u *UI) dialogPasswordEntry() *shortcutEntry {
	e := u.dialogEntry()
	e.Password = true
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	e.ActionItem = newRevealer(e)
	return e
}

// revealer is the eye at the end of a password field.
type revealer struct {
	widget.BaseWidget
	icon  *canvas.Image
	entry *shortcutEntry
}

var (
	_ desktop.Cursorable = (*revealer)(nil)
	_ fyne.Tappable      = (*revealer)(nil)
)

func newRevealer(e *shortcutEntry) *revealer {
	r := &revealer{icon: canvas.NewImageFromResource(theme.VisibilityOffIcon()), entry: e}
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer implements fyne.Widget.
func (r *revealer) CreateRenderer() fyne.WidgetRenderer {
	return &revealerRenderer{WidgetRenderer: widget.NewSimpleRenderer(r.icon), r: r}
}

// Cursor implements desktop.Cursorable.
func (r *revealer) Cursor() desktop.Cursor { return desktop.DefaultCursor }

// Tapped shows or hides the text, and gives the field the focus.
func (r *revealer) Tapped(*fyne.PointEvent) {
	if r.entry.Disabled() {
		return
	}
	r.entry.Password = !r.entry.Password
	r.entry.Refresh()
	r.Refresh()
	if c := fyne.CurrentApp().Driver().CanvasForObject(r); c != nil {
		c.Focus(r.entry)
	}
}

type revealerRenderer struct {
	fyne.WidgetRenderer
	r *revealer
}

func (rr *revealerRenderer) Layout(size fyne.Size) {
	s := theme.Size(theme.SizeNameInlineIcon)
	rr.r.icon.Resize(fyne.NewSquareSize(s))
	rr.r.icon.Move(fyne.NewPos((size.Width-s)/2, (size.Height-s)/2))
}

func (rr *revealerRenderer) MinSize() fyne.Size {
	return fyne.NewSquareSize(theme.Size(theme.SizeNameInlineIcon) + 2*theme.Size(theme.SizeNameInnerPadding))
}

func (rr *revealerRenderer) Refresh() {
	res := theme.VisibilityOffIcon()
	if !rr.r.entry.Password {
		res = theme.VisibilityIcon()
	}
	if rr.r.entry.Disabled() {
		res = theme.NewDisabledResource(res)
	}
	rr.r.icon.Resource = res
	rr.r.icon.Refresh()
}
