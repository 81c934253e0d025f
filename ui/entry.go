package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// shortcutEntry is an Entry that passes the window's own shortcuts (Ctrl+N,
// Ctrl+F) on instead of swallowing them while it has focus, and reports Esc.
type shortcutEntry struct {
	widget.Entry
	onShortcut func(fyne.Shortcut) bool // true when handled
	onEscape   func()
}

func newShortcutEntry() *shortcutEntry {
	e := &shortcutEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut implements fyne.Shortcutable.
func (e *shortcutEntry) TypedShortcut(s fyne.Shortcut) {
	if e.onShortcut != nil && e.onShortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}

// TypedKey implements fyne.Focusable.
func (e *shortcutEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

// messageEntry is the message box: a multi-line entry where Enter sends and
// Shift+Enter starts a new line.
type messageEntry struct {
	shortcutEntry
	shift  bool
	onSend func()
}

func newMessageEntry() *messageEntry {
	e := &messageEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.SetMinRowsVisible(3)
	e.ExtendBaseWidget(e)
	return e
}

// KeyDown implements desktop.Keyable, tracking Shift.
func (e *messageEntry) KeyDown(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = true
	}
	e.Entry.KeyDown(k)
}

// KeyUp implements desktop.Keyable, tracking Shift.
func (e *messageEntry) KeyUp(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = false
	}
	e.Entry.KeyUp(k)
}

// TypedKey implements fyne.Focusable: Enter sends, Shift+Enter is a newline.
func (e *messageEntry) TypedKey(k *fyne.KeyEvent) {
	if (k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter) && !e.shift {
		if e.onSend != nil {
			e.onSend()
		}
		return
	}
	e.shortcutEntry.TypedKey(k)
}

// AcceptsTab implements fyne.Tabbable: Tab and Shift+Tab move the focus
// out of the message box (to the last answer's buttons, say) instead of
// typing a tab.
func (e *messageEntry) AcceptsTab() bool { return false }

// FocusLost implements fyne.Focusable; a Shift released elsewhere must not
// stick.
func (e *messageEntry) FocusLost() {
	e.shift = false
	e.Entry.FocusLost()
}

// submitOnEnter makes Enter in any of entries submit the form dialog d, as
// its default button would (Submit does nothing while a field is invalid).
func submitOnEnter(d *dialog.FormDialog, entries ...*widget.Entry) {
	for _, e := range entries {
		e.OnSubmitted = func(string) { d.Submit() }
	}
}
