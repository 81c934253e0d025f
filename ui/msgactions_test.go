package ui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/memory"
)

// turnEnded waits until the current chat's last answer is complete.
func (h *harness) turnEnded() *msgState {
	h.t.Helper()
	h.waitFor("the answer", func() bool {
		s := h.u.currentSession()
		a := s.lastAnswer()
		return !s.busy && a != nil && !a.pending
	})
	return h.u.currentSession().lastAnswer()
}

// send types text into the message box and sends it.
func (h *harness) send(text string) *msgState {
	h.t.Helper()
	test.Type(h.u.pane.input, text)
	pressReturn(h.u.pane.input, false)
	return h.turnEnded()
}

// userMessages counts the user messages of the fake's chat id.
func (f *fakeBackend) userMessages(id string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.chats[id].Messages {
		if m.Role == agent.RoleUser {
			out = append(out, m.Text)
		}
	}
	return out
}

// scripted answers each turn with the next of answers; an answer "!stop"
// is cancelled after "Half", "!fail" fails.
func scripted(answers ...string) func(id, text string) []agent.Event {
	var mu sync.Mutex
	n := 0
	return func(id, text string) []agent.Event {
		mu.Lock()
		a := answers[min(n, len(answers)-1)]
		n++
		mu.Unlock()
		start := agent.TurnStarted{ChatID: id, Text: text}
		switch a {
		case "!stop":
			return []agent.Event{start, agent.Delta{ChatID: id, Text: "Half"},
				agent.TurnDone{ChatID: id, Err: context.Canceled}}
		case "!fail":
			return []agent.Event{start, agent.TurnDone{ChatID: id,
				Err: &agent.Error{Code: agent.CodeServer, Message: "The endpoint had a server error"}}}
		}
		return []agent.Event{start, agent.Delta{ChatID: id, Text: a}, agent.TurnDone{ChatID: id}}
	}
}

func TestRetryResendsTheSameQuestion(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("!fail", "It works now.") })
	a := h.send("hello")
	if a.Err == "" {
		t.Fatal("the first answer did not fail")
	}
	view := h.u.pane.views[1]
	test.Tap(button(t, view.root, "Retry"))
	b := h.turnEnded()
	if b.Text != "It works now." {
		t.Fatalf("the retry answered %q", b.Text)
	}
	if got := messageTexts(h.u.currentSession()); len(got) != 2 || got[0] != "user: hello" {
		t.Fatalf("after the retry the window shows %q, want the question once and the answer", got)
	}
	if got := h.fb.userMessages("chat1"); len(got) != 1 {
		t.Fatalf("the chat holds the question %d times: %q", len(got), got)
	}
	if len(h.u.pane.views) != 2 || !strings.Contains(shownText(h.u.pane.root), "It works now.") {
		t.Fatalf("%d messages shown:\n%s", len(h.u.pane.views), shownText(h.u.pane.root))
	}
}

func TestEditAndResend(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("one", "two", "edited answer") })
	h.send("first question")
	h.send("second question")
	v := h.u.pane.views[0]
	test.Tap(v.editB)
	if v.edit == nil || v.edit.Text != "first question" || h.w.Canvas().Focused() != v.edit {
		t.Fatal("Edit did not open the message in a focused message box")
	}
	v.edit.SetText("")
	test.Type(v.edit, "first question, better")
	pressReturn(v.edit, false)
	a := h.turnEnded()
	if a.Text != "edited answer" {
		t.Fatalf("the resent question got %q", a.Text)
	}
	want := []string{"user: first question, better", "assistant: edited answer"}
	if got := messageTexts(h.u.currentSession()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("after the edit the window shows %q, want %q", got, want)
	}
	if len(h.u.pane.views) != 2 {
		t.Fatalf("%d messages shown, want 2", len(h.u.pane.views))
	}
	c, _ := h.fb.Chat("chat1")
	if len(c.Branches) != 1 || len(c.Branches[0].Messages) != 4 {
		t.Errorf("the replaced messages are not kept: %+v", c.Branches)
	}
}

func TestEditCancelKeepsMessage(t *testing.T) {
	h := newHarness(t, nil)
	h.send("question")
	v := h.u.pane.views[0]
	test.Tap(v.editB)
	test.Type(v.edit, " changed")
	v.edit.onEscape()
	if v.m.editing || v.m.Text != "question" || len(h.fb.sentMessages()) != 1 {
		t.Fatalf("after Esc: editing %v, text %q, sent %q", v.m.editing, v.m.Text, h.fb.sentMessages())
	}
}

func TestRegenerateReplacesAnswer(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("first try", "second try") })
	a := h.send("question")
	v := h.u.pane.views[1]
	if v.m != a || v.regenB == nil {
		t.Fatal("the answer has no Regenerate button")
	}
	test.Tap(v.regenB)
	b := h.turnEnded()
	if b == a || b.Text != "second try" {
		t.Fatalf("regenerated answer %q", b.Text)
	}
	if got := messageTexts(h.u.currentSession()); len(got) != 2 || got[1] != "assistant: second try" {
		t.Fatalf("the window shows %q", got)
	}
	if got := h.fb.userMessages("chat1"); len(got) != 1 {
		t.Fatalf("the chat holds the question %d times", len(got))
	}
}

func TestContinueAfterStop(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = scripted("!stop", " and the rest.") })
	a := h.send("tell me")
	if !a.Stopped {
		t.Fatal("the answer was not stopped")
	}
	v := h.u.pane.views[1]
	if v.contB == nil {
		t.Fatal("the stopped answer has no Continue button")
	}
	test.Tap(v.contB)
	b := h.turnEnded()
	if b != a || b.Text != "Half and the rest." || b.Stopped {
		t.Fatalf("continued answer %q (stopped %v, same message %v)", b.Text, b.Stopped, b == a)
	}
	if len(h.u.pane.views) != 2 || v.contB != nil {
		t.Fatalf("%d messages shown; Continue still offered: %v", len(h.u.pane.views), v.contB != nil)
	}
}

func TestDisclosureListsPinnedAndEarlierTerms(t *testing.T) {
	pinned := memory.Entry{ID: "p1", Kind: memory.KindPreference, Text: "Answer in Chinese", Pinned: true}
	hit := memory.Entry{ID: "h1", Kind: memory.KindFact, Text: "Deploys go through the blue-green pipeline"}
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{agent.TurnStarted{ChatID: id, Text: text},
				agent.RecallDone{ChatID: id, Pinned: []agent.RecalledHit{{Hit: memory.Hit{Entry: pinned}, Scope: agent.ScopeGlobal}},
					Hits: []agent.RecalledHit{{Hit: memory.Hit{Entry: hit, Score: 1.5, Terms: []string{"prod", "deploy"},
						Earlier: []string{"deploy"}}, Scope: agent.ScopeGlobal}}},
				agent.Delta{ChatID: id, Text: strings.Repeat("A long answer.\n\n", 30)},
				agent.TurnDone{ChatID: id}}
		}
	})
	h.send("push it to prod")
	view := h.u.pane.views[1]
	sc := h.u.pane.scroll
	sc.ScrollToTop()
	test.Tap(button(t, view.root, "1 memory recalled · 1 pinned"))
	shown := shownText(view.root)
	for _, s := range []string{"Answer in Chinese", "preference · global · pinned · in the prompt",
		"score 1.50 · matched: prod · from earlier in the chat: deploy"} {
		if !strings.Contains(shown, s) {
			t.Errorf("the disclosure does not show %q:\n%s", s, shown)
		}
	}
	d := fyne.CurrentApp().Driver()
	bottom := d.AbsolutePositionForObject(view.opened).Y + view.opened.Size().Height
	if end := d.AbsolutePositionForObject(sc).Y + sc.Size().Height; sc.Offset.Y == 0 || bottom > end+1 {
		t.Errorf("the opened disclosure is not in view: it ends at %v, the view at %v", bottom, end)
	}
}
