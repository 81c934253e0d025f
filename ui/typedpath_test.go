package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// typeFolderItem is the project menu's "Type a folder path…".
func typeFolderItem(t *testing.T, h *harness) *fyne.MenuItem {
	t.Helper()
	for _, it := range h.u.bar.projectItems() {
		if it.Label == "Type a folder path…" {
			return it
		}
	}
	t.Fatal("the project menu has no item to type a folder path")
	return nil
}

// A project folder can be typed (or pasted) instead of picked: a full
// path, or one under ~; a relative one is refused with a reason, and
// nothing is pinned.
func TestProjectFolderTyped(t *testing.T) {
	home := t.TempDir()
	h := newHarness(t, nil)
	h.u.home = home
	for _, tc := range []struct{ typed, want string }{
		{filepath.Join(home, "code", "engram"), filepath.Join(home, "code", "engram")},
		{"~/notes", filepath.Join(home, "notes")},
	} {
		typeFolderItem(t, h).Action()
		h.settle()
		e := objects[*shortcutEntry](h.w.Canvas().Overlays().Top())
		if len(e) != 1 {
			t.Fatalf("%s: the dialog has %d fields", tc.typed, len(e))
		}
		test.Type(e[0], tc.typed)
		e[0].TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		h.settle()
		if c, _ := h.fb.Chat(h.u.current); c.Project != tc.want {
			t.Errorf("typed %q pinned %q, want %q", tc.typed, c.Project, tc.want)
		}
		if top := h.w.Canvas().Overlays().Top(); top != nil {
			t.Errorf("typed %q: a dialog is still open:\n%s", tc.typed, shownText(top))
			top.Hide()
		}
	}
	typeFolderItem(t, h).Action()
	h.settle()
	e := objects[*shortcutEntry](h.w.Canvas().Overlays().Top())[0]
	test.Type(e, "relative/dir")
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.settle()
	if c, _ := h.fb.Chat(h.u.current); c.Project != filepath.Join(home, "notes") {
		t.Errorf("a relative path pinned %q", c.Project)
	}
	top := h.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Enter on a relative path closed the dialog")
	}
	if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "full path") {
		t.Errorf("a relative path is not refused with a reason: %v", err)
	}
	if !button(t, top, "Pin folder").Disabled() {
		t.Error("Pin folder is enabled for a relative path")
	}
}
