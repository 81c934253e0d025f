package agent_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

func TestSearchUpdateForgetTools(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	e, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's dog is called Rex.", Source: memory.SourceUser})
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user works at a bakery.", Source: memory.SourceUser})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's cat is called Tom.", Source: memory.SourceTool})
	if err != nil {
		t.Fatal(err)
	}
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "s", Name: "memory_search", Args: `{"query":"dog name"}`},
			{ID: "s2", Name: "memory_search", Args: `{"query":"bakery"}`},
			{ID: "s3", Name: "memory_search", Args: `{"query":"cat"}`},
		}},
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "u", Name: "memory_update", Args: `{"id":"` + e.ID + `","text":"The user's dog is called Max."}`},
			{ID: "f", Name: "memory_forget", Args: `{"id":"` + f.ID + `","reason":"the user quit"}`},
			{ID: "g", Name: "memory_forget", Args: `{"id":"` + g.ID + `"}`},
		}},
		agenttest.Reply{Text: "Done."},
	)
	id := h.newChat()
	log := h.turn(id, "my dog is Max now, and forget my job and the cat")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	reqs := h.srv.Requests()
	if got := reqs[1].ToolResults()["s"]; !strings.Contains(got, e.ID) || !strings.Contains(got, "Rex") {
		t.Errorf("search result = %q", got)
	}
	// The update of a person's memory changes nothing: the new text waits
	// for the person, as a suggestion that would replace it.
	if got, _ := st.Get(e.ID); !got.Live() || got.Text != e.Text || len(st.History(e.ID)) != 1 {
		t.Errorf("the model changed a person's memory: %+v", st.History(e.ID))
	}
	if got := reqs[2].ToolResults()["u"]; !strings.Contains(got, "not changed yet") {
		t.Errorf("memory_update of a person's memory answered %q", got)
	}
	sugg := h.a.Suggestions()
	if len(sugg) != 1 || sugg[0].Replaces != e.ID || sugg[0].Text != "The user's dog is called Max." {
		t.Fatalf("suggestions = %+v", sugg)
	}
	// The forget of a person's memory is a proposal; of the model's own, done.
	if got, _ := st.Get(f.ID); !got.Live() {
		t.Errorf("a person's memory was forgotten without asking: %+v", got)
	}
	if got, _ := st.Get(g.ID); got.Live() {
		t.Errorf("the model's own memory was not forgotten: %+v", got)
	}
	var revised []agent.MemoriesRevised
	for _, ev := range log.events {
		if ev, ok := ev.(agent.MemoriesRevised); ok {
			revised = append(revised, ev)
		}
	}
	if len(revised) != 2 {
		t.Fatalf("MemoriesRevised = %+v", revised)
	}
	props := h.a.Proposals()
	if len(props) != 1 || props[0].Entry.ID != f.ID || props[0].Reason != "the user quit" {
		t.Fatalf("proposals = %+v", props)
	}
	if err := h.a.AcceptForget(props[0]); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(f.ID); got.Live() {
		t.Errorf("accepted forget left the memory live")
	}
	if err := h.a.UndoForget(props[0]); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(st.List(), func(e memory.Entry) bool { return e.Text == f.Text && e.Source == memory.SourceUser }) {
		t.Errorf("undo did not bring the memory back")
	}
	if err := h.a.AcceptForget(props[0]); err == nil {
		t.Error("a proposal was accepted twice")
	}
}

// In a chat whose memory the person switched off, "remember: …" saves
// nothing: the model's memory_write is answered that memory is off there.
func TestCaptureOffChatToolSavesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "w", Name: "memory_write", Args: `{"kind":"preference","text":"The user likes green tea."}`},
		}},
		agenttest.Reply{Text: "Memory is off here, so I did not save it."},
	)
	id := h.newChat()
	if err := h.a.SetCapture(id, agent.CaptureOff); err != nil {
		t.Fatal(err)
	}
	if log := h.turn(id, "remember: I like green tea"); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	if got := h.srv.Requests()[1].ToolResults()["w"]; !strings.Contains(got, "switched off") {
		t.Errorf("memory_write's result = %q, want it to say memory is off", got)
	}
	if es := h.store(agent.ScopeGlobal, "").List(); len(es) != 0 {
		t.Fatalf("stored %v with memory off", es)
	}
}

// A forget proposal survives a restart, and the file that keeps it holds
// which memory, not its text; one whose memory is gone meanwhile is dropped.
func TestForgetProposalsSurviveRestart(t *testing.T) {
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	mine, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's locker is number 4711.", Source: memory.SourceUser})
	if err != nil {
		t.Fatal(err)
	}
	gone, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's gym is Kraftwerk Nord.", Source: memory.SourceUser})
	if err != nil {
		t.Fatal(err)
	}
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "s", Name: "memory_search", Args: `{"query":"locker gym"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "f1", Name: "memory_forget", Args: `{"id":"` + mine.ID + `"}`},
			{ID: "f2", Name: "memory_forget", Args: `{"id":"` + gone.ID + `"}`},
		}},
		agenttest.Reply{Text: "Asked."},
	)
	if log := h.turn(h.newChat(), "forget my locker and my gym"); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	if n := len(h.a.Proposals()); n != 2 {
		t.Fatalf("%d proposals, want 2", n)
	}
	b, err := os.ReadFile(filepath.Join(h.paths.DataDir, "forget-proposals.json"))
	if err != nil || strings.Contains(string(b), "4711") || !strings.Contains(string(b), mine.ID) {
		t.Fatalf("proposals file %s (%v)", b, err)
	}
	if err := st.Remove(gone.ID); err != nil {
		t.Fatal(err)
	}
	h.a.Close()
	again, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	props := again.Proposals()
	if len(props) != 1 || props[0].Entry.ID != mine.ID || props[0].Entry.Text != mine.Text {
		t.Fatalf("after a restart: %+v", props)
	}
	if err := again.AcceptForget(props[0]); err != nil {
		t.Fatal(err)
	}
}

// A temporary chat is one memory does not touch: no recall and no pinned
// memories in its prompt, no memory tools, nothing distilled, and no file,
// so it is gone after a restart.
func TestTemporaryChatLeavesNoTrace(t *testing.T) {
	h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
	st := h.store(agent.ScopeGlobal, "")
	pin := true
	e, _, err := st.Add(memory.Entry{Kind: memory.KindPreference, Text: "The user prefers tea over coffee."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(e.ID, memory.Change{Pinned: &pin}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's sister lives in Graz."}); err != nil {
		t.Fatal(err)
	}
	c := h.a.NewTemporaryChat()
	h.srv.Push(agenttest.Reply{Text: "Graz is lovely."})
	log := h.turn(c.ID, "my sister lives in Graz, remember that")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	h.a.Wait()
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want the turn's only (no distillation)", len(reqs))
	}
	sys := reqs[0].System()
	if strings.Contains(sys, "tea over coffee") || strings.Contains(sys, "Graz") || len(reqs[0].Tools) != 0 {
		t.Errorf("a temporary chat's request has memory in it: tools %v\n%s", reqs[0].Tools, sys)
	}
	if n := len(st.List()); n != 2 {
		t.Errorf("%d memories after a temporary chat, want the 2 there were", n)
	}
	if files, _ := filepath.Glob(filepath.Join(h.paths.ChatsDir(), "*.json")); len(files) != 0 {
		t.Errorf("a temporary chat left %v", files)
	}
	h.a.Close()
	again, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if chats := again.Chats(); len(chats) != 0 {
		t.Errorf("after a restart: %+v", chats)
	}
}
