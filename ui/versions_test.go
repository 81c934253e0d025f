package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"engram/agent"
)

// ShowVersion shows a kept version in the fake's chat, as the agent does.
func (f *fakeBackend) ShowVersion(chatID, msgID, versionID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.index(chatID, msgID)
	if err != nil {
		return err
	}
	return f.chats[chatID].ShowVersion(i, versionID, time.Now())
}

var _ versionShower = (*fakeBackend)(nil)

// A regenerated answer shows ‹ 2/2 ›; ‹ shows the first answer again, in
// the window and in the chat, which then goes on from it. A message with
// one version has no arrows.
func TestVersionArrowsSwitchTheAnswer(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("first try", "second try", "more") })
	h.send("question")
	p := h.u.pane
	if v := p.views[1]; v.prevB != nil || v.nextB != nil {
		t.Fatal("an answer never regenerated has version arrows")
	}
	test.Tap(p.views[1].regenB)
	h.turnEnded()
	v := p.views[1]
	if v.prevB == nil || v.nextB == nil || v.versionText != "2/2" || !v.nextB.Disabled() || v.prevB.Disabled() {
		t.Fatalf("the regenerated answer's arrows: %v %v %q", v.prevB != nil, v.nextB != nil, v.versionText)
	}
	if v.prevB.tip != "Previous version" || v.nextB.tip != "Next version" {
		t.Errorf("the arrows' tips are %q and %q", v.prevB.tip, v.nextB.tip)
	}
	for _, c := range objects[*caption](v.root) {
		if c.Text() == "2/2" && c.MinSize().Height > v.prevB.MinSize().Height {
			t.Errorf("\"2/2\" is %v tall, taller than the arrows (%v): it wraps", c.MinSize().Height, v.prevB.MinSize().Height)
		}
	}
	if !strings.Contains(shownText(v.root), "2/2") {
		t.Errorf("the answer does not show 2/2:\n%s", shownText(v.root))
	}
	if p.views[0].prevB != nil {
		t.Error("the question has version arrows")
	}
	test.Tap(v.prevB)
	h.settle()
	if got := messageTexts(h.u.currentSession()); strings.Join(got, "|") != "user: question|assistant: first try" {
		t.Fatalf("after ‹ the window shows %q", got)
	}
	v = p.views[1]
	if v.versionText != "1/2" || !v.prevB.Disabled() || v.nextB.Disabled() {
		t.Fatalf("after ‹ the arrows say %q (‹ off %v, › off %v)", v.versionText, v.prevB.Disabled(), v.nextB.Disabled())
	}
	h.send("and then?")
	if got := h.fb.chatTexts("chat1"); strings.Join(got, "|") !=
		"user: question|assistant: first try|user: and then?|assistant: more" {
		t.Fatalf("the chat goes on as %q", got)
	}
	test.Tap(p.views[1].nextB)
	h.settle()
	if got := messageTexts(h.u.currentSession()); strings.Join(got, "|") != "user: question|assistant: second try" {
		t.Fatalf("after › the window shows %q", got)
	}
}

// An edited question shows its versions once the chat is opened again
// (they are read from the chat).
func TestVersionsReadWhenTheChatOpens(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("one", "two") })
	h.send("first")
	test.Tap(h.u.pane.views[0].editB)
	v := h.u.pane.views[0]
	v.edit.SetText("first, better")
	pressReturn(v.edit, false)
	h.turnEnded()
	if got := h.u.pane.views[0].versionText; got != "2/2" {
		t.Fatalf("the edited question says %q", got)
	}
	s := h.u.currentSession()
	s.loaded, s.branches, s.branchesRead = false, nil, false
	c, err := h.fb.Chat("chat1")
	if err != nil {
		t.Fatal(err)
	}
	h.u.chatLoaded(s, c, nil)
	h.settle()
	if got := h.u.pane.views[0].versionText; got != "2/2" {
		t.Fatalf("opened again, the edited question says %q", got)
	}
}

// A second tap before the first switch is done does nothing: the message
// it was on is gone by then.
func TestVersionSwitchOnceAtATime(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("first try", "second try") })
	h.send("question")
	test.Tap(h.u.pane.views[1].regenB)
	h.turnEnded()
	v := h.u.pane.views[1]
	test.Tap(v.prevB)
	test.Tap(v.prevB)
	h.settle()
	if got := messageTexts(h.u.currentSession()); strings.Join(got, "|") != "user: question|assistant: first try" {
		t.Fatalf("after two taps the window shows %q", got)
	}
	if n := len(h.w.Canvas().Overlays().List()); n != 0 {
		t.Errorf("%d dialogs show after two quick taps", n)
	}
}

// A notice under an answer (distillation's, after it finished) is shown
// again when the answer's version is: switching to the regenerated answer
// and back does not lose it.
func TestVersionSwitchKeepsNotices(t *testing.T) {
	const secret = "1 memory not saved: it looks like a secret (a password, key or token)."
	answers := scripted("first try", "second try")
	h := newHarness(t, func(fb *fakeBackend) {
		n := 0
		fb.script = func(id, text string) []agent.Event {
			n++
			evs := answers(id, text)
			if n == 1 {
				evs = append(evs, agent.Notice{ChatID: id, Text: secret})
			}
			return evs
		}
	})
	h.send("question")
	h.waitFor("the notice", func() bool { return countNotices(h.u.currentSession()) == 1 })
	p := h.u.pane
	test.Tap(p.views[1].regenB)
	h.turnEnded()
	if shown := shownText(p.root); strings.Contains(shown, "looks like a secret") {
		t.Fatalf("the regenerated answer shows the first one's notice:\n%s", shown)
	}
	test.Tap(p.views[1].prevB)
	h.settle()
	if got := messageTexts(h.u.currentSession()); strings.Join(got, "|") != "user: question|assistant: first try" {
		t.Fatalf("after ‹ the window shows %q", got)
	}
	if shown := shownText(p.root); !strings.Contains(shown, "looks like a secret") {
		t.Errorf("the first answer lost its notice:\n%s", shown)
	}
}
