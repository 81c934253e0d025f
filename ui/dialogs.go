package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// closable is a dialog the window keeps track of: any dialog.Dialog, or a
// file dialog.
type closable interface {
	Show()
	Dismiss()
	SetOnClosed(func())
}

// showDialog shows d and keeps it among the open dialogs until it
// closes: Esc closes the top one (as its Cancel or Close button does), and
// the window's shortcuts wait while one is open.
func (u *UI) showDialog(d closable) {
	u.dialogs = append(u.dialogs, d)
	d.SetOnClosed(func() { u.dialogs = slices.DeleteFunc(u.dialogs, func(x closable) bool { return x == d }) })
	d.Show()
}

// dialogOpen reports whether a dialog, or any other pop-up (a menu, the
// inspector's dialogs), covers the window.
func (u *UI) dialogOpen() bool {
	return len(u.dialogs) > 0 || u.w.Canvas().Overlays().Top() != nil
}

// escape is what Esc does where no widget takes it for itself: it closes
// the top dialog; with none open it stops the current chat's turn, unless
// a pop-up the window does not track covers it (Esc then does nothing
// behind it).
func (u *UI) escape() {
	if n := len(u.dialogs); n > 0 {
		u.dialogs[n-1].Dismiss()
		return
	}
	if u.w.Canvas().Overlays().Top() != nil {
		return
	}
	u.stop()
}

// dialogEntry is a field of a dialog: Esc in it closes the top dialog.
func (u *UI) dialogEntry() *shortcutEntry {
	e := newShortcutEntry()
	e.onEscape = u.escape
	return e
}

// escSelectEntry is a SelectEntry in which Esc calls onEscape.
type escSelectEntry struct {
	widget.SelectEntry
	onEscape func()
}

func newEscSelectEntry(onEscape func()) *escSelectEntry {
	e := &escSelectEntry{onEscape: onEscape}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey implements fyne.Focusable.
func (e *escSelectEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.SelectEntry.TypedKey(k)
}
