package agent_test

import (
	"context"
	"strings"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

func TestLearnSkipsCaptureOffAndResumes(t *testing.T) {
	h := newHarness(t, nil, nil)
	a, b := h.newChat(), h.newChat()
	h.srv.Push(agenttest.Reply{Text: "Sure, English it is."}, agenttest.Reply{Text: "Helix is nice."})
	h.turn(a, "I always write my commit messages in English.")
	h.turn(b, "My favourite editor is Helix and I use it daily.")
	if err := h.a.SetCapture(b, agent.CaptureOff); err != nil {
		t.Fatal(err)
	}
	h.srv.Respond = func(r agenttest.Request) agenttest.Reply {
		if strings.Contains(r.LastUser(), "commit messages") {
			return agenttest.Reply{Text: `[{"op":"add","kind":"preference","text":"The user writes commit messages in English."}]`}
		}
		return agenttest.Reply{Text: `[{"op":"add","kind":"fact","text":"Something from a chat that was not to be learned."}]`}
	}
	var steps []agent.LearnProgress
	tot, err := h.a.Learn(context.Background(), agent.LearnOptions{OnProgress: func(p agent.LearnProgress) {
		steps = append(steps, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if tot.Turns != 1 || tot.Saved != 1 {
		t.Errorf("totals = %+v", tot)
	}
	if last := steps[len(steps)-1]; last.Chat != 2 || last.Chats != 2 {
		t.Errorf("last progress = %+v", last)
	}
	list := h.store(agent.ScopeGlobal, "").List()
	if len(list) != 1 || list[0].Text != "The user writes commit messages in English." {
		t.Errorf("store = %+v", list)
	}
	n := len(h.srv.Requests())
	tot, err = h.a.Learn(context.Background(), agent.LearnOptions{})
	if err != nil || tot.Turns != 0 || len(h.srv.Requests()) != n {
		t.Errorf("second run: %+v, %v, %d new requests", tot, err, len(h.srv.Requests())-n)
	}
}

func TestProjectMemoriesConsolidated(t *testing.T) {
	h := distillHarness(t, nil)
	dir := t.TempDir()
	id := h.newChat()
	if err := h.a.SetProject(id, dir); err != nil {
		t.Fatal(err)
	}
	ps := h.store(agent.ScopeProject, dir)
	old := addMemory(t, ps, memory.Entry{Kind: memory.KindFact, Text: "This project builds with make build.", Source: memory.SourceAuto})
	req, _ := h.distillTurn(id, "This project builds with just build now, not make build.", "Noted.",
		`[{"op":"update","id":"`+old.ID+`","text":"This project builds with just build."},`+
			`{"op":"add","kind":"fact","text":"This project's CI runs on every push.","scope":"project"}]`)
	if !strings.Contains(req.LastUser(), "id="+old.ID+" ") || !strings.Contains(req.LastUser(), "scope=project: This project builds with make build.") {
		t.Errorf("the project memory is not listed:\n%s", req.LastUser())
	}
	live := map[string]bool{}
	for _, e := range ps.List() {
		live[e.Text] = true
	}
	if len(live) != 2 || !live["This project builds with just build."] || !live["This project's CI runs on every push."] {
		t.Errorf("project store = %v", live)
	}
	if hist := ps.History(old.ID); len(hist) != 2 {
		t.Errorf("history = %+v", hist)
	}
	if n := len(h.store(agent.ScopeGlobal, "").All()); n != 0 {
		t.Errorf("%d memories in the global store", n)
	}
}
