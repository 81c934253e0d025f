package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tipButton is an icon-only button that says what it does while the
// pointer is over it or it has the keyboard focus. Fyne 2.7 has no
// tooltips, and a pop-up would take the pointer's events from the window
// while it shows, so the words go to a label beside the buttons (show).
type tipButton struct {
	widget.Button
	tip  string
	show func(tip string) // shows tip, "" hides it
}

func newTipButton(tip string, icon fyne.Resource, tapped func(), show func(string)) *tipButton {
	b := &tipButton{tip: tip, show: show}
	b.Icon, b.OnTapped, b.Importance = icon, tapped, widget.LowImportance
	b.ExtendBaseWidget(b)
	return b
}

// MouseIn implements desktop.Hoverable.
func (b *tipButton) MouseIn(e *desktop.MouseEvent) {
	b.Button.MouseIn(e)
	b.show(b.tip)
}

// MouseOut implements desktop.Hoverable.
func (b *tipButton) MouseOut() {
	b.Button.MouseOut()
	b.show("")
}

// FocusGained implements fyne.Focusable.
func (b *tipButton) FocusGained() {
	b.Button.FocusGained()
	b.show(b.tip)
}

// FocusLost implements fyne.Focusable.
func (b *tipButton) FocusLost() {
	b.Button.FocusLost()
	b.show("")
}

// newTipText is the label the tips of a row of tipButtons show in: small
// secondary text, nothing wide while no tip shows.
func newTipText() *canvas.Text {
	t := canvas.NewText("", theme.Color(theme.ColorNamePlaceHolder))
	t.TextSize = theme.CaptionTextSize()
	return t
}
