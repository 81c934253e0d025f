package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestNoBackendCallBeforeStart builds the window and asks for a new chat
// before Start, as a person may while the agent still opens: nothing
// reaches the backend until Start, which then makes the change.
func TestNoBackendCallBeforeStart(t *testing.T) {
	test.NewTempApp(t)
	fb := newFakeBackend(t)
	h := &harness{t: t, fb: fb, ready: make(chan struct{}, 1)}
	h.w = test.NewWindow(nil)
	h.w.Resize(fyne.NewSize(1200, 760))
	h.u = New(h.w, fb, Options{Do: h.enqueue})
	t.Cleanup(func() {
		h.u.cancel()
		h.settle()
		h.u.Close()
		h.w.Close()
	})
	h.u.newChat()
	h.u.list.search.entry.SetText("anything")
	h.settle()
	if chats := fb.Chats(); len(chats) != 0 {
		t.Fatalf("the backend made %d chats before Start", len(chats))
	}
	h.u.Start()
	h.waitFor("the chats", func() bool { return len(h.u.chats) == 2 })
	if got := len(fb.Chats()); got != 2 {
		t.Fatalf("%d chats after Start, want the first one and the one asked for", got)
	}
}
