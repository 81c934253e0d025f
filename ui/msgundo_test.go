package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// chatTexts is "role: text" of each message of the fake's chat id.
func (f *fakeBackend) chatTexts(id string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.chats[id].Messages {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

// Delete takes the message out of the window at once and offers Undo; the
// chat keeps it until the offer ends (here: the bar is closed).
func TestDeleteMessageAfterUndoBar(t *testing.T) {
	h := newHarness(t, nil)
	h.send("question")
	test.Tap(h.u.pane.views[1].delB)
	h.settle()
	p := h.u.pane
	if len(p.views) != 1 || len(h.u.currentSession().msgs) != 1 {
		t.Fatalf("%d messages shown after deleting the answer", len(p.views))
	}
	if !p.undoBar.Visible() || !strings.Contains(shownText(p.undoBar), "Message deleted") {
		t.Fatalf("no Undo bar after the delete:\n%s", shownText(p.root))
	}
	if n := len(h.fb.chatTexts("chat1")); n != 2 {
		t.Fatalf("while Undo shows the chat holds %d messages, want both", n)
	}
	p.commitDelete() // what the end of the offer and the bar's close button do
	h.settle()
	if got := h.fb.chatTexts("chat1"); len(got) != 1 || !strings.HasPrefix(got[0], "user: ") {
		t.Fatalf("the chat holds %q", got)
	}
	if p.undoBar.Visible() {
		t.Error("the Undo bar still shows")
	}
}

// Undo puts the message back where it was, in the window and in the chat.
func TestUndoDeleteRestoresInPlace(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("one", "two") })
	h.send("first")
	h.send("second")
	p := h.u.pane
	test.Tap(p.views[1].delB) // the answer "one"
	h.settle()
	if got := messageTexts(h.u.currentSession()); strings.Join(got, "|") != "user: first|user: second|assistant: two" {
		t.Fatalf("after the delete the window shows %q", got)
	}
	test.Tap(p.undoB)
	h.settle()
	want := "user: first|assistant: one|user: second|assistant: two"
	if got := messageTexts(h.u.currentSession()); strings.Join(got, "|") != want {
		t.Fatalf("after Undo the window shows %q, want %q", got, want)
	}
	if len(p.views) != 4 || p.undoBar.Visible() {
		t.Fatalf("%d messages shown, Undo bar shown %v", len(p.views), p.undoBar.Visible())
	}
	p.commitDelete() // nothing is waiting: nothing is deleted
	h.settle()
	if got := h.fb.chatTexts("chat1"); strings.Join(got, "|") != want {
		t.Fatalf("after Undo the chat holds %q", got)
	}
}

// A new turn deletes the message first, so the model never sees it.
func TestDeleteIsDoneBeforeTheNextTurn(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("one", "two") })
	h.send("first")
	test.Tap(h.u.pane.views[1].delB)
	h.settle()
	h.send("second")
	if got := h.fb.chatTexts("chat1"); strings.Join(got, "|") != "user: first|user: second|assistant: two" {
		t.Fatalf("the chat holds %q", got)
	}
	if h.u.pane.undoBar.Visible() {
		t.Error("the Undo bar still shows after the next turn")
	}
}
