package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// Every icon-only action of a message says what it does while the pointer
// is over it or it has the focus: Copy, Edit, Delete on the person's
// message; Copy, Regenerate, Continue, Delete on a stopped answer; Select
// text on both.
func TestMessageActionsHaveTips(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("!stop") })
	h.send("question")
	for i, want := range [][]string{{"Copy", "Select text", "Edit", "Delete"},
		{"Copy", "Select text", "Regenerate", "Continue", "Delete"}} {
		v := h.u.pane.views[i]
		var tips []string
		for _, b := range objects[*widget.Button](v.root) {
			if b.Text == "" {
				t.Errorf("message %d: an icon-only action has no tip (icon %s)", i, b.Icon.Name())
			}
		}
		for _, b := range objects[*tipButton](v.root) {
			tips = append(tips, b.tip)
			b.MouseIn(&desktop.MouseEvent{})
			if got := v.tipText.Text; got != b.tip {
				t.Errorf("message %d: over %q the row says %q", i, b.tip, got)
			}
			b.MouseOut()
			if got := v.tipText.Text; got != "" {
				t.Errorf("message %d: after leaving %q the row still says %q", i, b.tip, got)
			}
			b.FocusGained()
			if got := v.tipText.Text; got != b.tip {
				t.Errorf("message %d: focused on %q the row says %q", i, b.tip, got)
			}
			b.FocusLost()
		}
		if !slices.Equal(tips, want) {
			t.Errorf("message %d: tips %q, want %q", i, tips, want)
		}
	}
}

// Edit opens the message box with the cursor after the text, so that
// typing goes on from the end.
func TestEditStartsAtTheEnd(t *testing.T) {
	h := newHarness(t, nil)
	h.send("first line\nsecond")
	v := h.u.pane.views[0]
	test.Tap(v.editB)
	if got, want := v.edit.CursorTextOffset(), len("first line\nsecond"); got != want {
		t.Errorf("the cursor is at %d, want the end, %d", got, want)
	}
	test.Type(v.edit, "!")
	if v.edit.Text != "first line\nsecond!" {
		t.Errorf("typing gave %q", v.edit.Text)
	}
}
