package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// The window's shortcuts, all with the platform's shortcut modifier (Ctrl,
// or Cmd on macOS): a new chat, search the memories, search the chats, the
// sheet of shortcuts, quit.
var windowKeys = []fyne.KeyName{fyne.KeyN, fyne.KeyF, fyne.KeyK, fyne.KeySlash, fyne.KeyQ}

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
// Ctrl+/, Ctrl+Q; ⌘N, ⌘F, ⌘K, ⌘/, ⌘Q on macOS) and Esc on the window; the entries pass the same
// shortcuts on while they have focus.
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
