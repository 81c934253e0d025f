package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// The chat search's results are chosen from the keyboard: ↓ and ↑ move
// through them, Enter opens the one chosen (the first when none is).
func TestChatSearchKeys(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		for _, title := range []string{"Deploy one", "Deploy two", "Deploy three"} {
			c, _ := fb.NewChat()
			fb.with(c.ID, func(c *Chat) { c.Title = title })
		}
	})
	cs := h.u.list.search
	cs.focus()
	test.Type(cs.entry, "deploy")
	h.waitFor("the matches", func() bool { return cs.query == "deploy" && len(cs.matches) == 3 })
	key := func(k fyne.KeyName) { cs.entry.TypedKey(&fyne.KeyEvent{Name: k}) }
	key(fyne.KeyDown)
	key(fyne.KeyDown)
	key(fyne.KeyDown)
	key(fyne.KeyDown) // stays on the last
	key(fyne.KeyUp)
	if cs.chosen != 1 {
		t.Fatalf("after ↓↓↓↓↑ result %d is chosen, want 1", cs.chosen)
	}
	want := cs.matches[1].ChatID
	key(fyne.KeyReturn)
	h.waitFor("the chat", func() bool { return h.u.current == want && h.u.currentSession().loaded })

	test.Type(cs.entry, " ")
	cs.entry.SetText("deploy")
	h.waitFor("the matches again", func() bool { return cs.query == "deploy" && len(cs.matches) == 3 })
	if cs.chosen != -1 {
		t.Errorf("new matches keep result %d chosen", cs.chosen)
	}
	want = cs.matches[0].ChatID
	key(fyne.KeyReturn)
	h.waitFor("the first match", func() bool { return h.u.current == want })
}
