package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// The window's shortcuts, all with the platform's shortcut modifier (Ctrl,
// or Cmd on macOS): a new chat, search the memories, search the chats, the
// sheet of shortcuts, quit, and the jumps to each area of the window
// (areaKeys).
var windowKeys = append([]fyne.KeyName{fyne.KeyN, fyne.KeyF, fyne.KeyK, fyne.KeySlash, fyne.KeyQ}, areaKeys...)

// areaKeys move the focus to an area of the window, in the order they
// appear on screen: the chat list, the message box, the memory search and
// the toolbar. Tab goes through every button on the way; these go
// straight there.
var areaKeys = []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4}

// shortcutName shows the shortcut of key the way the platform writes it:
// "Ctrl+N", or "⌘N" on macOS (shortcutPrefix, shortcut_darwin.go).
func shortcutName(key fyne.KeyName) string {
	return shortcutPrefix + string(key)
}

// shortcut handles the window's shortcuts; it reports whether s was one.
// Behind an open dialog they do nothing (but are still taken, so that the
// dialog's fields do not act on them).
func (u *UI) shortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || cs.Modifier != fyne.KeyModifierShortcutDefault || !slices.Contains(windowKeys, cs.KeyName) {
		return false
	}
	if u.dialogOpen() {
		return true
	}
	switch cs.KeyName {
	case fyne.KeyN:
		u.newChat()
	case fyne.KeyF:
		if !u.inspectorOpen {
			u.toggleInspector()
		}
		u.insp.focusSearch()
	case fyne.KeyK:
		u.list.search.focus()
	case fyne.KeySlash:
		u.showShortcuts()
	case fyne.KeyQ:
		u.quit()
	case fyne.Key1:
		u.w.Canvas().Focus(u.list.list)
	case fyne.Key2:
		u.w.Canvas().Focus(u.pane.input)
	case fyne.Key3:
		if !u.inspectorOpen {
			u.toggleInspector()
		}
		u.insp.focusSearch()
	case fyne.Key4:
		u.bar.focusFirst()
	}
	return true
}

// quit ends the app, as closing its window does.
func (u *UI) quit() {
	if a := fyne.CurrentApp(); a != nil {
		a.Quit()
	}
}

// addShortcuts registers the window's shortcuts (Ctrl+N, Ctrl+F, Ctrl+K,
// Ctrl+/, Ctrl+Q, Ctrl+1 to Ctrl+4; ⌘ for Ctrl on macOS) and Esc on the
// window; the entries pass the same shortcuts on while they have focus.
func (u *UI) addShortcuts() {
	c := u.w.Canvas()
	for _, k := range windowKeys {
		sc := &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
		c.AddShortcut(sc, func(s fyne.Shortcut) { u.shortcut(s) })
	}
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			u.escape()
		}
	})
}

// focusFirst focuses the toolbar's first control on screen (the folded
// toolbar's ⋯ menu when the window is narrow).
func (t *toolbar) focusFirst() {
	if f := firstFocusable(t.root); f != nil {
		t.u.w.Canvas().Focus(f)
	}
}

// firstFocusable is the first visible, enabled object that takes the
// focus in the containers under o, in the order Tab visits them, or nil.
// It does not look inside widgets: a widget either takes the focus or is
// passed over.
func firstFocusable(o fyne.CanvasObject) fyne.Focusable {
	if o == nil || !o.Visible() {
		return nil
	}
	if f, ok := o.(fyne.Focusable); ok {
		if d, ok := o.(fyne.Disableable); !ok || !d.Disabled() {
			return f
		}
	}
	c, ok := o.(*fyne.Container)
	if !ok {
		return nil
	}
	for _, k := range c.Objects {
		if f := firstFocusable(k); f != nil {
			return f
		}
	}
	return nil
}
