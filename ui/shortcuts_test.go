package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

func ctrl(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
}

// TestAreaShortcuts: Ctrl+1 to Ctrl+4 go straight to the chat list, the
// message box, the memory search and the toolbar's first control (the ⋯
// menu when the toolbar is folded), from a field or a button, and do
// nothing behind a dialog.
func TestAreaShortcuts(t *testing.T) {
	h := newHarness(t, nil)
	c := h.w.Canvas()
	in := h.u.pane.input
	in.TypedShortcut(ctrl(fyne.Key4))
	if c.Focused() != h.u.bar.project {
		t.Fatalf("Ctrl+4 focused %T, want the toolbar's project button", c.Focused())
	}
	h.u.shortcut(ctrl(fyne.Key1)) // from the button: the window takes it
	if c.Focused() != h.u.list.list {
		t.Fatalf("Ctrl+1 focused %T, want the chat list", c.Focused())
	}
	h.u.shortcut(ctrl(fyne.Key3))
	if c.Focused() != h.u.insp.search || !h.u.inspectorOpen {
		t.Fatalf("Ctrl+3 focused %T (inspector open %v), want the memory search", c.Focused(), h.u.inspectorOpen)
	}
	h.u.insp.search.TypedShortcut(ctrl(fyne.Key2))
	if c.Focused() != in {
		t.Fatalf("Ctrl+2 focused %T, want the message box", c.Focused())
	}
	h.w.Resize(fyne.NewSize(560, 700))
	h.settle()
	in.TypedShortcut(ctrl(fyne.Key4))
	if c.Focused() != h.u.bar.more {
		t.Fatalf("Ctrl+4 in a narrow window focused %T, want the ⋯ menu", c.Focused())
	}
	h.u.showShortcuts()
	h.u.shortcut(ctrl(fyne.Key2))
	if c.Focused() == in {
		t.Error("Ctrl+2 acted behind the open dialog")
	}
}
