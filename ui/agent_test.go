package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// newTestAgent opens the real agent, as cmd/engram wires it, on folders in
// t.TempDir(), talking to srv over HTTP. Distillation is off, so that each
// turn makes only the requests a test scripts; tune may change the
// options. This is the one place the tests build an agent.
func newTestAgent(t *testing.T, srv *agenttest.Server, tune ...func(*agent.Options)) (*agent.Agent, agent.Paths) {
	t.Helper()
	paths := agent.Paths{ConfigDir: t.TempDir(), DataDir: t.TempDir(), StateDir: t.TempDir()}
	cfg := agent.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.Distill = srv.BaseURL(), "fake-model", false
	opts := agent.Options{Config: cfg, Paths: paths, HTTPClient: srv.Client(), RetryDelay: time.Millisecond}
	for _, f := range tune {
		f(&opts)
	}
	ag, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ag.Close(); err != nil {
			t.Errorf("close the agent: %v", err)
		}
	})
	return ag, paths
}

// agentHarness is a harness on the real agent and the fake endpoint.
type agentHarness struct {
	*harness
	ag    *agent.Agent
	srv   *agenttest.Server
	paths agent.Paths
}

// newAgentHarness runs the UI on the real agent; prepare may script the
// endpoint and fill the memories before the window starts.
func newAgentHarness(t *testing.T, prepare func(ah *agentHarness)) *agentHarness {
	t.Helper()
	test.NewTempApp(t)
	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	ag, paths := newTestAgent(t, srv)
	ah := &agentHarness{ag: ag, srv: srv, paths: paths}
	if prepare != nil {
		prepare(ah)
	}
	ah.harness = startHarness(t, AgentBackend{ag})
	return ah
}

// ask sends text from the message box and waits for the answer to end.
func (ah *agentHarness) ask(text string) *msgState {
	ah.t.Helper()
	return ah.send(text)
}

func TestAgentStreamsAnswer(t *testing.T) {
	pieces := []string{"Run `make ", "deploy` with **dry", "-run** first:\n\n", "```sh\nmake deploy ",
		"DRY_RUN=1\n```\n"}
	ah := newAgentHarness(t, func(ah *agentHarness) { ah.srv.Push(agenttest.Reply{Pieces: pieces}) })
	a := ah.ask("How do I deploy?")
	if want := strings.Join(pieces, ""); a.Text != want || a.Err != "" {
		t.Fatalf("answer %q (error %q), want %q", a.Text, a.Err, want)
	}
	reqs := ah.srv.Requests()
	if len(reqs) != 1 || reqs[0].LastUser() != "How do I deploy?" || !reqs[0].Stream {
		t.Fatalf("the endpoint got %d requests, the last user message %q", len(reqs), reqs[len(reqs)-1].LastUser())
	}
	shown := shownText(ah.u.pane.root)
	for _, s := range []string{"How do I deploy?", "dry-run", "make deploy DRY_RUN=1"} {
		if !strings.Contains(shown, s) {
			t.Errorf("the chat pane does not show %q:\n%s", s, shown)
		}
	}
	c, err := ah.ag.Chat(ah.u.current)
	if err != nil || len(c.Messages) != 2 || c.Messages[1].Text != a.Text {
		t.Fatalf("the agent saved %d messages (%v), want the question and the answer", len(c.Messages), err)
	}
}

func TestAgentRecallDisclosure(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		st, err := ah.ag.Memory(agent.ScopeGlobal, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindCorrection, Text: "Deploy with the dry-run flag first",
			Source: memory.SourceUser}); err != nil {
			t.Fatal(err)
		}
		ah.srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "c1", Name: agent.ToolMemorySearch,
			Args: `{"query":"deploy"}`}}}, agenttest.Reply{Text: "Use the dry-run flag first."})
	})
	a := ah.ask("How should I deploy?")
	if a.Text != "Use the dry-run flag first." || len(a.Recalled) != 1 {
		t.Fatalf("answer %q with %d memories recalled", a.Text, len(a.Recalled))
	}
	if sys := ah.srv.Requests()[0].System(); !strings.Contains(sys, "Deploy with the dry-run flag first") {
		t.Errorf("the recalled memory is not in the system prompt:\n%s", sys)
	}
	view := ah.u.pane.views[len(ah.u.pane.views)-1]
	test.Tap(button(t, view.root, "1 memory recalled · 1 tool call"))
	shown := shownText(view.root)
	for _, s := range []string{"Deploy with the dry-run flag first", "score ", "memory_search", `{"query":"deploy"}`} {
		if !strings.Contains(shown, s) {
			t.Errorf("the disclosure does not show %q:\n%s", s, shown)
		}
	}
	if !strings.Contains(shownText(ah.u.insp.root), "recalled for this answer") {
		t.Error("no inspector row says it was recalled")
	}
}

func TestAgentInspectorAddEdit(t *testing.T) {
	ah := newAgentHarness(t, nil)
	i := ah.u.insp
	path := ah.paths.GlobalMemory()
	test.Tap(i.add)
	test.Type(i.ed.text, "Prefers answers in Chinese")
	i.ed.kind.SetSelected(string(memory.KindPreference))
	test.Tap(i.ed.saveB)
	ah.waitFor("the new row", func() bool { return len(i.rows) == 1 })
	if got := liveTexts(readEntries(t, path)); len(got) != 1 || got[0] != "preference:Prefers answers in Chinese" {
		t.Fatalf("after add the agent's memory file holds %q", got)
	}
	editRow(t, i, 0)
	i.ed.text.SetText("Answer in Chinese, code comments in English")
	test.Tap(i.ed.pinned)
	test.Tap(i.ed.saveB)
	ah.waitFor("the edited row", func() bool {
		return len(i.rows) == 1 && i.rows[0].e.Text == "Answer in Chinese, code comments in English"
	})
	es := readEntries(t, path)
	if got := liveTexts(es); len(got) != 1 || got[0] != "preference:Answer in Chinese, code comments in English" ||
		!es[0].Pinned {
		t.Fatalf("after edit the agent's memory file holds %q (pinned %v)", got, len(es) > 0 && es[0].Pinned)
	}
	ah.ask("hello")
	if sys := ah.srv.Requests()[0].System(); !strings.Contains(sys, "code comments in English") {
		t.Errorf("the next turn's prompt does not hold the edited, pinned memory:\n%s", sys)
	}
}

func TestAgentEndpointErrorShown(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Status: 401, ErrorType: "invalid_request_error", ErrorCode: "invalid_api_key",
			Message: "Incorrect API key provided"})
	})
	a := ah.ask("hello")
	if !strings.Contains(a.Err, "rejected the API key (401)") || !a.settings {
		t.Fatalf("the answer's error is %q (settings offered %v)", a.Err, a.settings)
	}
	view := ah.u.pane.views[len(ah.u.pane.views)-1]
	if !strings.Contains(shownText(view.root), "rejected the API key (401)") {
		t.Fatalf("the error is not shown:\n%s", shownText(view.root))
	}
	button(t, view.root, "Open settings")
	test.Tap(button(t, view.root, "Retry"))
	ah.waitFor("the retried answer", func() bool {
		b := ah.u.currentSession().lastAnswer()
		return !ah.u.currentSession().busy && b != a && !b.pending
	})
	if b := ah.u.currentSession().lastAnswer(); b.Text != "Echo: hello" || b.Err != "" {
		t.Fatalf("the retry answered %q (error %q)", b.Text, b.Err)
	}
	// The question is asked again, not repeated: the model gets it once,
	// the chat and the window hold it once.
	reqs := ah.srv.Requests()
	var users []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(users) != 1 {
		t.Errorf("the retry sent the user messages %q", users)
	}
	if c, _ := ah.ag.Chat(ah.u.current); len(c.Messages) != 2 || len(c.Branches) != 1 {
		t.Errorf("the chat holds %d messages and %d branches, want the question, the answer and the failed branch",
			len(c.Messages), len(c.Branches))
	}
	if got := messageTexts(ah.u.currentSession()); len(got) != 2 || len(ah.u.pane.views) != 2 {
		t.Errorf("the window shows %q", got)
	}
}

func TestAgentRegenerateAndEdit(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Text: "First answer."}, agenttest.Reply{Text: "Second answer."})
	})
	ah.ask("What is Engram?")
	test.Tap(ah.u.pane.views[1].regenB)
	a := ah.turnEnded()
	if a.Text != "Second answer." || len(ah.u.pane.views) != 2 {
		t.Fatalf("regenerated %q with %d messages shown", a.Text, len(ah.u.pane.views))
	}
	v := ah.u.pane.views[0]
	test.Tap(v.editB)
	v.edit.SetText("What is Engram, briefly?")
	pressReturn(v.edit, false)
	b := ah.turnEnded()
	if b.Text != "Echo: What is Engram, briefly?" {
		t.Fatalf("the edited question got %q", b.Text)
	}
	c, err := ah.ag.Chat(ah.u.current)
	if err != nil || len(c.Messages) != 2 || c.Messages[0].Text != "What is Engram, briefly?" || len(c.Branches) != 2 {
		t.Fatalf("the chat holds %+v and %d branches (%v)", c.Messages, len(c.Branches), err)
	}
	if got := messageTexts(ah.u.currentSession()); strings.Join(got, "|") !=
		"user: What is Engram, briefly?|assistant: Echo: What is Engram, briefly?" {
		t.Fatalf("the window shows %q", got)
	}
}

func TestAgentContinueCutAnswer(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Text: "Step one,", Finish: "length"}, agenttest.Reply{Text: " step two."})
	})
	a := ah.ask("List the steps")
	v := ah.u.pane.views[1]
	if !a.Cut || v.contB == nil {
		t.Fatalf("the cut answer (cut %v) offers no Continue", a.Cut)
	}
	test.Tap(v.contB)
	b := ah.turnEnded()
	if b != a || b.Text != "Step one, step two." {
		t.Fatalf("continued to %q", b.Text)
	}
	if c, _ := ah.ag.Chat(ah.u.current); len(c.Messages) != 2 || c.Messages[1].Text != "Step one, step two." {
		t.Fatalf("the chat holds %+v", c.Messages)
	}
}

func TestAgentDisclosureShowsPinned(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		st, err := ah.ag.Memory(agent.ScopeGlobal, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindPreference, Text: "Answer in Chinese", Pinned: true,
			Source: memory.SourceUser}); err != nil {
			t.Fatal(err)
		}
	})
	ah.ask("hello")
	view := ah.u.pane.views[1]
	test.Tap(button(t, view.root, "No memories recalled · 1 pinned"))
	if !strings.Contains(shownText(view.root), "Answer in Chinese") {
		t.Errorf("the disclosure does not list the pinned memory:\n%s", shownText(view.root))
	}
}
