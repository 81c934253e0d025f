package ui

import (
	"strings"
	"testing"
	"time"

	"engram/agent"
)

// A notice that comes after the turn's TurnDone (distillation's) goes under
// the finished answer: no new pending "Thinking…" message opens, and a
// second turn's late notice does not pile up another one.
func TestLateNoticeAttachesToAnswer(t *testing.T) {
	const secret = "1 memory not saved: it looks like a secret (a password, key or token)."
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{
				agent.TurnStarted{ChatID: id, Text: text},
				agent.RecallDone{ChatID: id},
				agent.Delta{ChatID: id, Text: "Noted."},
				agent.TurnDone{ChatID: id, At: time.Now()},
				agent.Notice{ChatID: id, Text: secret},
			}
		}
	})
	for turn, q := range []string{"my key is AKIA…", "and the other one"} {
		in := h.u.pane.input
		in.SetText(q)
		pressReturn(in, false)
		want := turn + 1
		h.waitFor("the late notice", func() bool { return countNotices(h.u.currentSession()) == want })
		s := h.u.currentSession()
		if a := s.lastAnswer(); a == nil || a.Text != "Noted." || len(a.notices) != 1 || a.notices[0] != secret {
			t.Errorf("turn %d: the last answer is %+v, want \"Noted.\" with the notice", want, a)
		}
		if len(s.msgs) != 2*want {
			t.Fatalf("turn %d: %d messages, want %d", want, len(s.msgs), 2*want)
		}
		for i, m := range s.msgs {
			if m.pending {
				t.Errorf("turn %d: message %d (%q) is still pending", want, i, m.Text)
			}
		}
		if s.busy {
			t.Errorf("turn %d: the chat is still busy", want)
		}
		shown := shownText(h.u.pane.root)
		if strings.Contains(shown, "Thinking…") {
			t.Errorf("turn %d: a pending message shows:\n%s", want, shown)
		}
		if strings.Count(shown, "looks like a secret") != want {
			t.Errorf("turn %d: the notice shows %d times, want %d:\n%s", want, strings.Count(shown, "looks like a secret"), want, shown)
		}
	}
}

// countNotices counts the notices of the messages of s.
func countNotices(s *session) int {
	n := 0
	for _, m := range s.msgs {
		n += len(m.notices)
	}
	return n
}
