package ui

import (
	"context"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

func TestChatShowsWhatAnotherProcessAdds(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) { ah.srv.Push(agenttest.Reply{Text: "The window's answer."}) })
	first := ah.ask("A question in the window")
	first.notices = append(first.notices, "a notice only the window knows")
	id := ah.u.current

	// engramctl chat --chat ID, on the same folders.
	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	srv.Push(agenttest.Reply{Text: "The terminal's answer."})
	other, _ := newTestAgent(t, srv, func(o *agent.Options) { o.Paths = ah.paths })
	if err := other.Send(context.Background(), id, "A question from the terminal"); err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		select {
		case e := <-other.Events():
			_, done = e.(agent.TurnDone)
		case <-time.After(10 * time.Second):
			t.Fatal("the other process's turn did not end")
		}
	}

	ah.waitFor("the other process's turn in the window", func() bool {
		ms := ah.u.currentSession().msgs
		return len(ms) == 4 && ms[3].Text == "The terminal's answer."
	})
	ms := ah.u.currentSession().msgs
	if ms[2].Text != "A question from the terminal" || ms[1] != first || len(first.notices) != 1 {
		t.Fatalf("after the merge: %q, the first answer kept: %v, its notices %q", ms[2].Text, ms[1] == first, first.notices)
	}
	if got := len(ah.u.pane.ml.msgs); got != 4 {
		t.Errorf("the pane shows %d messages, want 4", got)
	}
}
