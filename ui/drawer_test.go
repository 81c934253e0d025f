package ui

import (
	"testing"

	"fyne.io/fyne/v2"
)

// At 720 px the inspector is a drawer over the chat: the chat keeps its
// column's width, Memories opens and closes the drawer at the right, and
// at 1200 px the inspector is beside the chat again.
func TestInspectorDrawerWhenNarrow(t *testing.T) {
	h := newHarness(t, nil)
	resize := func(w float32) {
		h.w.Resize(fyne.NewSize(w, 600))
		h.settle()
	}
	abs := func(o fyne.CanvasObject) fyne.Position {
		return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	}
	resize(720)
	if !h.u.drawer || h.u.insp.root.Visible() {
		t.Fatalf("at 720 px: drawer %v, inspector shown %v; want a closed drawer", h.u.drawer, h.u.insp.root.Visible())
	}
	if w, all := h.u.pane.root.Size().Width, h.u.body.Size().Width; w < all-1 {
		t.Errorf("at 720 px the chat is %v wide, want all of its %v", w, all)
	}
	h.u.toggleInspector()
	h.settle()
	insp := h.u.insp.root
	if !insp.Visible() || insp.Size().Width < 300 {
		t.Fatalf("Memories did not open the drawer (shown %v, %v wide)", insp.Visible(), insp.Size().Width)
	}
	if right := abs(insp).X + insp.Size().Width; right < 700 || abs(insp).X < 100 {
		t.Errorf("the drawer runs from %v to %v, want it at the right of a 720 px window", abs(insp).X, right)
	}
	if w, all := h.u.pane.root.Size().Width, h.u.body.Size().Width; w < all-1 {
		t.Errorf("with the drawer open the chat is %v wide of %v: it should lie under the drawer", w, all)
	}
	h.u.toggleInspector()
	h.settle()
	if insp.Visible() {
		t.Error("Memories did not close the drawer")
	}
	h.u.toggleInspector()
	resize(1200)
	if h.u.drawer || !insp.Visible() || abs(insp).X < abs(h.u.pane.root).X+h.u.pane.root.Size().Width-1 {
		t.Errorf("at 1200 px: drawer %v, inspector shown %v at %v, chat to %v", h.u.drawer, insp.Visible(),
			abs(insp).X, abs(h.u.pane.root).X+h.u.pane.root.Size().Width)
	}
}
