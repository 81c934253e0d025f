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

// distillHarness is a harness with distillation on.
func distillHarness(t *testing.T, cfg func(*agent.Config)) *harness {
	return newHarness(t, func(c *agent.Config) {
		c.Distill = true
		if cfg != nil {
			cfg(c)
		}
	}, nil)
}

// distillTurn runs a turn answered with answer, whose distillation the fake
// answers with ops; it returns the distillation request and the events up to
// the end of the distillation.
func (h *harness) distillTurn(chatID, text, answer, ops string) (agenttest.Request, []agent.Event) {
	h.t.Helper()
	before := len(h.srv.Requests())
	h.srv.Push(agenttest.Reply{Text: answer}, agenttest.Reply{Text: ops})
	log := h.turn(chatID, text)
	if log.done.Err != nil {
		h.t.Fatal(log.done.Err)
	}
	h.a.Wait()
	reqs := h.srv.Requests()
	if len(reqs) != before+2 {
		h.t.Fatalf("%d requests, want a turn and a distillation", len(reqs)-before)
	}
	return reqs[before+1], append(log.events, h.drain()...)
}

// lastTurnRequest is the last request of a turn (not a distillation).
func (h *harness) lastTurnRequest() agenttest.Request {
	h.t.Helper()
	reqs := h.srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if strings.HasPrefix(reqs[i].System(), "You are Engram") {
			return reqs[i]
		}
	}
	h.t.Fatal("no turn request")
	return agenttest.Request{}
}

func addMemory(t *testing.T, st *memory.Store, e memory.Entry) memory.Entry {
	t.Helper()
	got, _, err := st.Add(e)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestCorrectionSupersedes(t *testing.T) {
	h := distillHarness(t, nil)
	st := h.store(agent.ScopeGlobal, "")
	old := addMemory(t, st, memory.Entry{Kind: memory.KindPreference, Text: "The user prefers tabs over spaces in Go code.", Source: memory.SourceAuto})
	id := h.newChat()
	req, events := h.distillTurn(id, "Correction: I use spaces now, not tabs, in my Go code.", "Got it, spaces.",
		`[{"op":"update","id":"`+old.ID+`","text":"The user prefers spaces over tabs in Go code."}]`)

	// The distiller was shown the related memory in the contract's format.
	line := "id=" + old.ID + " date=" + old.Updated.UTC().Format("2006-01-02") + " kind=preference scope=global: " + old.Text
	if !strings.Contains(req.LastUser(), line) {
		t.Errorf("distillation request does not list %q:\n%s", line, req.LastUser())
	}
	hist := st.History(old.ID)
	if len(hist) != 2 || hist[0].ID != old.ID || hist[0].Live() || !hist[1].Live() ||
		hist[1].Text != "The user prefers spaces over tabs in Go code." || hist[1].Supersedes != old.ID {
		t.Fatalf("history = %+v", hist)
	}
	if revised := of[agent.MemoriesRevised](events); len(revised) != 1 || len(revised[0].Updated) != 1 {
		t.Errorf("MemoriesRevised = %+v", revised)
	}

	// The next turn recalls only the new version.
	h.srv.Push(agenttest.Reply{Text: "Spaces."}, agenttest.Reply{Text: "[]"})
	h.turn(id, "which indentation do I use in Go code, tabs or spaces?")
	h.a.Wait()
	sys := h.lastTurnRequest().System()
	if strings.Contains(sys, "prefers tabs over spaces") || !strings.Contains(sys, "[preference · "+hist[1].ID+" · ") {
		t.Errorf("recall after the correction:\n%s", sys)
	}
}

func TestRestatementIsNoOp(t *testing.T) {
	h := distillHarness(t, nil)
	st := h.store(agent.ScopeGlobal, "")
	tea := addMemory(t, st, memory.Entry{Kind: memory.KindPreference, Text: "The user drinks green tea.", Source: memory.SourceAuto})
	id := h.newChat()
	for _, ops := range []string{
		`[{"op":"add","kind":"preference","text":"The user drinks green tea."}]`,
		`[{"op":"none"}]`,
		`[{"op":"update","id":"` + tea.ID + `","text":"The user drinks  green tea."}]`,
	} {
		_, events := h.distillTurn(id, "Just so you know, I drink green tea every day.", "Noted.", ops)
		for _, s := range of[agent.MemoriesSaved](events) {
			if len(s.Entries) > 0 || s.Err != nil {
				t.Errorf("%s: MemoriesSaved = %+v", ops, s)
			}
		}
		if r := of[agent.MemoriesRevised](events); len(r) > 0 {
			t.Errorf("%s: MemoriesRevised = %+v", ops, r)
		}
		if all := st.All(); len(all) != 1 || !all[0].Live() {
			t.Errorf("%s: store = %+v", ops, all)
		}
	}
}

func TestContradictionForgottenWithUndo(t *testing.T) {
	h := distillHarness(t, nil)
	st := h.store(agent.ScopeGlobal, "")
	oslo := addMemory(t, st, memory.Entry{Kind: memory.KindFact, Text: "The user lives in Oslo.", Source: memory.SourceAuto})
	mine := addMemory(t, st, memory.Entry{Kind: memory.KindFact, Text: "The user's office is in Oslo.", Source: memory.SourceUser})
	other := addMemory(t, st, memory.Entry{Kind: memory.KindFact, Text: "The user owns a bicycle.", Source: memory.SourceAuto})
	id := h.newChat()
	_, events := h.distillTurn(id, "I moved away from Oslo: I do not live there, and my office is not in Oslo any more.", "Understood.",
		"<think>they moved</think>```json\n[{\"op\":\"forget\",\"id\":\""+oslo.ID+"\",\"reason\":\"the user moved away\"},"+
			"{\"op\":\"forget\",\"id\":\""+mine.ID+"\",\"reason\":\"the user moved away\"},"+
			"{\"op\":\"forget\",\"id\":\""+other.ID+"\"},{\"op\":\"update\",\"id\":\"nosuchid00\",\"text\":\"x y z\"}]\n```")
	if e, _ := st.Get(oslo.ID); e.Live() {
		t.Error("the contradicted memory is still live")
	}
	if e, _ := st.Get(mine.ID); !e.Live() {
		t.Error("a memory the person wrote was forgotten without asking")
	}
	if e, _ := st.Get(other.ID); !e.Live() {
		t.Error("a memory the distiller was not shown was forgotten")
	}
	if n := len(st.List()); n != 2 {
		t.Errorf("%d live memories, want 2 (nothing made up for the unknown id)", n)
	}
	revised := of[agent.MemoriesRevised](events)
	if len(revised) != 1 || len(revised[0].Forgotten) != 1 || len(revised[0].Proposed) != 1 ||
		revised[0].Forgotten[0].Reason != "the user moved away" {
		t.Fatalf("MemoriesRevised = %+v", revised)
	}
	// Its text left the file at once; undo adds it again.
	if data, err := os.ReadFile(h.paths.GlobalMemory()); err != nil || strings.Contains(string(data), oslo.Text) {
		t.Errorf("memory.json still holds the forgotten text (%v)", err)
	}
	if err := h.a.UndoForget(revised[0].Forgotten[0]); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(st.List(), func(e memory.Entry) bool { return e.Text == oslo.Text && e.Source == memory.SourceAuto }) {
		t.Error("undo did not bring the memory back")
	}
	if err := h.a.DismissForget(revised[0].Proposed[0]); err != nil {
		t.Fatal(err)
	}
	if len(h.a.Proposals()) != 0 {
		t.Error("a dismissed proposal is still pending")
	}
}

func TestChineseTurnGivesChineseMemories(t *testing.T) {
	h := distillHarness(t, nil)
	id := h.newChat()
	req, _ := h.distillTurn(id, "我写 Go 代码时更喜欢用空格缩进，不用制表符。", "好的，记住了。",
		`[{"op":"add","kind":"preference","text":"用户写 Go 代码时喜欢用空格缩进。"}]`)
	if !strings.Contains(req.LastUser(), "write the memories in Chinese") ||
		!strings.Contains(req.System(), "in the language the user wrote in") {
		t.Errorf("the distillation request does not ask for Chinese:\n%s\n%s", req.System(), req.LastUser())
	}
	list := h.store(agent.ScopeGlobal, "").List()
	if len(list) != 1 || list[0].Text != "用户写 Go 代码时喜欢用空格缩进。" {
		t.Errorf("store = %+v", list)
	}
	// An English turn gets no language line (the general rule applies).
	req, _ = h.distillTurn(id, "Also I deploy my services with Kubernetes every week.", "OK.", `[]`)
	if strings.Contains(req.LastUser(), "write the memories in") {
		t.Errorf("English turn with a language line:\n%s", req.LastUser())
	}
}

const awsKey = "AKIAIOSFODNN7EXAMPLE"

func TestSecretsKeptOut(t *testing.T) {
	h := distillHarness(t, nil)
	st := h.store(agent.ScopeGlobal, "")
	id := h.newChat()

	// Distillation drops them and says so.
	_, events := h.distillTurn(id, "My AWS key is "+awsKey+" and I work from Lisbon these days.", "OK.",
		`[{"op":"add","kind":"fact","text":"The user's AWS key is `+awsKey+`."},`+
			`{"op":"add","kind":"fact","text":"The user works from Lisbon."}]`)
	if list := st.List(); len(list) != 1 || list[0].Text != "The user works from Lisbon." {
		t.Errorf("store = %+v", list)
	}
	secretNotice := false
	for _, n := range of[agent.Notice](events) {
		secretNotice = secretNotice || strings.Contains(n.Text, "looks like a secret") && !strings.Contains(n.Text, awsKey)
	}
	if !secretNotice {
		t.Error("no notice that a secret was not saved")
	}

	// A tool write is refused with a message the model can relay; so is an
	// update that would put one in.
	lisbon := st.List()[0]
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "w", Name: "memory_write", Args: `{"kind":"fact","text":"The GitHub token is ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"}`},
			{ID: "s", Name: "memory_search", Args: `{"query":"Lisbon"}`},
		}},
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "u", Name: "memory_update", Args: `{"id":"` + lisbon.ID + `","text":"密码是abc12345"}`},
		}},
		agenttest.Reply{Text: "I did not save that."},
	)
	h.turn(id, "ok") // small talk: no distillation
	h.a.Wait()
	reqs := h.srv.Requests()
	for _, call := range []struct {
		req int
		id  string
	}{{len(reqs) - 2, "w"}, {len(reqs) - 1, "u"}} {
		if got := reqs[call.req].ToolResults()[call.id]; !strings.Contains(got, "not saved: it looks like a secret") {
			t.Errorf("tool %s result = %q", call.id, got)
		}
	}
	if all := st.All(); len(all) != 1 || all[0].Text != "The user works from Lisbon." {
		t.Errorf("store after the tools = %+v", all)
	}
	data, err := os.ReadFile(h.paths.GlobalMemory())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{awsKey, "ghp_", "abc12345"} {
		if strings.Contains(string(data), s) {
			t.Errorf("memory.json holds %q", s)
		}
	}
}

func TestAskFirstKeepsSuggestionsOutOfRecall(t *testing.T) {
	h := distillHarness(t, func(c *agent.Config) { c.Capture = agent.CaptureAsk })
	st := h.store(agent.ScopeGlobal, "")
	id := h.newChat()
	_, events := h.distillTurn(id, "I always bike to work, even when it rains.", "Nice.",
		`[{"op":"add","kind":"fact","text":"The user bikes to work, even in the rain."}]`)
	if len(of[agent.SuggestionsChanged](events)) != 1 {
		t.Error("no SuggestionsChanged event")
	}
	if n := len(st.All()); n != 0 {
		t.Fatalf("%d memories stored in ask-first mode", n)
	}
	sugg := h.a.Suggestions()
	if len(sugg) != 1 || sugg[0].Text != "The user bikes to work, even in the rain." {
		t.Fatalf("suggestions = %+v", sugg)
	}
	h.srv.Push(agenttest.Reply{Text: "Yes."}, agenttest.Reply{Text: "[]"})
	h.turn(id, "do I bike to work in the rain?")
	h.a.Wait()
	if sys := h.lastTurnRequest().System(); strings.Contains(sys, "bikes to work") {
		t.Errorf("a suggestion was recalled before it was kept:\n%s", sys)
	}
	kept, err := h.a.KeepSuggestion(sugg[0].ID, "The user bikes to work every day, even in the rain.")
	if err != nil {
		t.Fatal(err)
	}
	if kept.Source != memory.SourceUser || len(h.a.Suggestions()) != 0 {
		t.Errorf("kept = %+v, suggestions left %d", kept, len(h.a.Suggestions()))
	}
	h.srv.Push(agenttest.Reply{Text: "Yes."}, agenttest.Reply{Text: "[]"})
	h.turn(id, "do I bike to work in the rain?")
	h.a.Wait()
	if sys := h.lastTurnRequest().System(); !strings.Contains(sys, "bikes to work every day") {
		t.Errorf("a kept suggestion is not recalled:\n%s", sys)
	}

	// Suggestions survive a restart; Discard drops one.
	_, _ = h.distillTurn(id, "I also keep a spare tube in my bike bag at all times.", "Smart.",
		`[{"op":"add","kind":"fact","text":"The user keeps a spare tube in the bike bag."}]`)
	if err := h.a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths, HTTPClient: h.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sugg = b.Suggestions()
	if len(sugg) != 1 {
		t.Fatalf("suggestions after a restart = %+v", sugg)
	}
	if err := b.DiscardSuggestion(sugg[0].ID); err != nil || len(b.Suggestions()) != 0 {
		t.Errorf("discard: %v, %+v", err, b.Suggestions())
	}
	if _, err := b.KeepSuggestion(sugg[0].ID, ""); err == nil {
		t.Error("a discarded suggestion was kept")
	}
}

func TestCaptureOffPerChat(t *testing.T) {
	h := distillHarness(t, nil)
	id := h.newChat()
	if err := h.a.SetCapture(id, agent.CaptureOff); err != nil {
		t.Fatal(err)
	}
	h.srv.Push(agenttest.Reply{Text: "Fine."})
	h.turn(id, "I prefer dark mode in every editor I use.")
	h.a.Wait()
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests with capture off, want 1 (no distillation)", n)
	}
	if err := h.a.SetCapture(id, "sometimes"); err == nil {
		t.Error("an unknown capture mode was accepted")
	}
}

func TestChatFileKeepsReferencesNotText(t *testing.T) {
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	e := addMemory(t, st, memory.Entry{Kind: memory.KindFact, Text: "The user's cat is called Whiskerface.", Source: memory.SourceUser})
	pin := addMemory(t, st, memory.Entry{Kind: memory.KindPreference, Text: "Answer in short sentences, please.",
		Source: memory.SourceUser, Pinned: true})
	id := h.newChat()
	h.turn(id, "what is my cat Whiskerface called again?")
	h.a.Wait()
	data, err := os.ReadFile(filepath.Join(h.paths.ChatsDir(), id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"id": "`+e.ID+`"`) && !strings.Contains(string(data), `"id":"`+e.ID+`"`) {
		t.Fatalf("the chat file does not refer to the recalled memory:\n%s", data)
	}
	if strings.Count(string(data), "The user's cat is called Whiskerface.") != 0 {
		t.Errorf("the chat file copies the memory's text:\n%s", data)
	}
	c, err := h.a.Chat(id)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Messages[len(c.Messages)-1].Recalled; len(r) != 1 || r[0].Entry.Text != e.Text {
		t.Errorf("Chat does not resolve the recalled memory: %+v", r)
	}
	if strings.Contains(string(data), pin.Text) {
		t.Errorf("the chat file copies the pinned memory's text:\n%s", data)
	}
	if p := c.Messages[len(c.Messages)-1].Pinned; len(p) != 1 || p[0].Entry.Text != pin.Text {
		t.Errorf("Chat does not resolve the pinned memory: %+v", p)
	}
}

// The model never rewrites what the person wrote: a distilled update of a
// pinned memory the person typed leaves it as it is and holds the new
// text as a suggestion that would replace it, kept across a restart.
func TestDistilledUpdateOfPersonsMemoryIsProposed(t *testing.T) {
	h := distillHarness(t, nil)
	st := h.store(agent.ScopeGlobal, "")
	mine := addMemory(t, st, memory.Entry{Kind: memory.KindPreference, Text: "I prefer tabs for indentation in Go code.",
		Source: memory.SourceUser, Pinned: true})
	id := h.newChat()
	_, events := h.distillTurn(id, "These days I use spaces for indentation in Go code, not tabs.", "Noted.",
		`[{"op":"update","id":"`+mine.ID+`","text":"The user prefers spaces for indentation."}]`)
	if got, _ := st.Get(mine.ID); got.Text != mine.Text || !got.Live() || got.Source != memory.SourceUser ||
		len(st.History(mine.ID)) != 1 {
		t.Fatalf("the person's memory became %+v", st.History(mine.ID))
	}
	if revised := of[agent.MemoriesRevised](events); len(revised) != 0 {
		t.Errorf("MemoriesRevised = %+v, want none", revised)
	}
	if len(of[agent.SuggestionsChanged](events)) == 0 {
		t.Error("no SuggestionsChanged for the proposed update")
	}
	sugg := h.a.Suggestions()
	if len(sugg) != 1 || sugg[0].Replaces != mine.ID || sugg[0].Text != "The user prefers spaces for indentation." {
		t.Fatalf("suggestions = %+v", sugg)
	}
	h.a.Close()
	again, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if s := again.Suggestions(); len(s) != 1 || s[0].Replaces != mine.ID {
		t.Fatalf("after a restart: %+v", s)
	}
}

// "Ask first" does not suggest what the store already holds: a suggestion
// goes through the dedupe an add would.
func TestAskFirstSuggestsNoDuplicate(t *testing.T) {
	h := distillHarness(t, func(c *agent.Config) { c.Capture = agent.CaptureAsk })
	st := h.store(agent.ScopeGlobal, "")
	addMemory(t, st, memory.Entry{Kind: memory.KindPreference, Text: "The user drinks black coffee.", Source: memory.SourceUser})
	_, events := h.distillTurn(h.newChat(), "I drink black coffee", "Noted.",
		`[{"op":"add","kind":"preference","text":"the user drinks black coffee"},`+
			`{"op":"add","kind":"fact","text":"The user lives in Graz."}]`)
	sugg := h.a.Suggestions()
	if len(sugg) != 1 || sugg[0].Text != "The user lives in Graz." {
		t.Fatalf("suggestions = %+v, want only the new memory", sugg)
	}
	if n := len(of[agent.SuggestionsChanged](events)); n != 1 {
		t.Errorf("%d SuggestionsChanged", n)
	}
}
