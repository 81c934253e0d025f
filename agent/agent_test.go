package agent_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

func TestPlainTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Text: "Hello there, how can I help you today?"})
	id := h.newChat()
	log := h.turn(id, "Hi, I need help\nwith something")

	if log.done.Err != nil {
		t.Fatalf("TurnDone.Err = %v", log.done.Err)
	}
	if got := log.text(); got != "Hello there, how can I help you today?" {
		t.Errorf("streamed text = %q", got)
	}
	want := []string{"TurnStarted", "RecallDone", "Delta", "TurnDone"}
	if got := log.kinds(); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if log.done.Usage.PromptTokens == 0 || log.done.Usage.CompletionTokens == 0 {
		t.Errorf("usage not reported: %+v", log.done.Usage)
	}

	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if !r.Stream || !r.IncludeUsage || r.Model != "fake-model" || r.Auth != "Bearer sk-test-key-1234" {
		t.Errorf("request: stream=%v usage=%v model=%q auth=%q", r.Stream, r.IncludeUsage, r.Model, r.Auth)
	}
	if want := []string{"memory_write", "memory_search", "memory_update", "memory_forget"}; !slices.Equal(r.Tools, want) {
		t.Errorf("tools = %v, want %v", r.Tools, want)
	}
	if r.Messages[0].Role != "system" || r.LastUser() != "Hi, I need help\nwith something" {
		t.Errorf("messages = %+v", r.Messages)
	}

	c, err := h.a.Chat(id)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Hi, I need help" {
		t.Errorf("title = %q", c.Title)
	}
	if len(c.Messages) != 2 || c.Messages[0].Role != agent.RoleUser || c.Messages[1].Role != agent.RoleAssistant ||
		c.Messages[1].Text != "Hello there, how can I help you today?" || c.Messages[1].Usage == nil {
		t.Errorf("chat messages = %+v", c.Messages)
	}
	// The chat is on disk, private, and a new agent reads it back.
	path := filepath.Join(h.paths.ChatsDir(), id+".json")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("chat file mode = %v, want 0600", st.Mode().Perm())
	}
	h.a.Close()
	b, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c2, err := b.Chat(id)
	if err != nil || len(c2.Messages) != 2 || c2.Title != c.Title {
		t.Errorf("reloaded chat = %+v, %v", c2, err)
	}
}

func TestAnswerCutAtOutputLimitIsSaid(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Text: "The first half of", Finish: "length"}, agenttest.Reply{Text: "Complete."})
	id := h.newChat()
	log := h.turn(id, "Write a long essay")
	if n := of[agent.Notice](log.events); len(n) != 1 || !strings.Contains(n[0].Text, "cut off") {
		t.Errorf("notices = %+v, want one saying the answer was cut off", n)
	}
	if log.done.Err != nil || log.text() != "The first half of" {
		t.Errorf("turn: %v, %q", log.done.Err, log.text())
	}
	if n := of[agent.Notice](h.turn(id, "Thanks").events); len(n) != 0 {
		t.Errorf("notices for a complete answer: %+v", n)
	}
}

func TestSecondTurnSendsHistory(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Text: "First answer."}, agenttest.Reply{Text: "Second answer."})
	id := h.newChat()
	h.turn(id, "first question")
	if err := h.a.Send(context.Background(), id, "second question"); err != nil {
		t.Fatal(err)
	}
	if err := h.a.Send(context.Background(), id, "third"); !errors.Is(err, agent.ErrTurnRunning) {
		t.Errorf("Send during a turn = %v, want ErrTurnRunning", err)
	}
	h.until(id)
	r := h.srv.Requests()[1]
	var roles []string
	for _, m := range r.Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	want := []string{"user:first question", "assistant:First answer.", "user:second question"}
	if !slices.Equal(roles[1:], want) {
		t.Errorf("history = %q, want %q", roles[1:], want)
	}
}

func TestSendErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	id := h.newChat()
	if err := h.a.Send(context.Background(), id, "  \n"); err == nil {
		t.Error("Send of empty text: no error")
	}
	if err := h.a.Send(context.Background(), "no-such-chat", "hi"); !errors.Is(err, agent.ErrChatNotFound) {
		t.Errorf("Send to unknown chat = %v", err)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests after failed sends", n)
	}
}

func TestMemoryWriteThenAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "call_a", Name: "memory_write",
			Args: `{"kind":"preference","text":"The user prefers tabs over spaces."}`}}},
		agenttest.Reply{Text: "Noted, tabs it is."},
	)
	id := h.newChat()
	log := h.turn(id, "Always use tabs, never spaces.")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	calls, results := of[agent.ToolCall](log.events), of[agent.ToolResult](log.events)
	if len(calls) != 1 || calls[0].Name != "memory_write" || calls[0].CallID != "call_a" ||
		!strings.Contains(calls[0].Args, "tabs over spaces") {
		t.Fatalf("tool calls = %+v", calls)
	}
	if len(results) != 1 || results[0].Err != nil {
		t.Fatalf("tool results = %+v", results)
	}
	list := h.store(agent.ScopeGlobal, "").List()
	if len(list) != 1 || list[0].Text != "The user prefers tabs over spaces." || list[0].Kind != memory.KindPreference ||
		list[0].Source != memory.SourceTool {
		t.Fatalf("store = %+v", list)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	res := reqs[1].ToolResults()["call_a"]
	if !strings.Contains(res, list[0].ID) {
		t.Errorf("tool result sent back = %q, want it to name %s", res, list[0].ID)
	}
	var assistantCalls int
	for _, m := range reqs[1].Messages {
		if m.Role == "assistant" {
			assistantCalls += len(m.ToolCalls)
		}
	}
	if assistantCalls != 1 {
		t.Errorf("second request has %d assistant tool calls, want 1", assistantCalls)
	}
	c, _ := h.a.Chat(id)
	last := c.Messages[len(c.Messages)-1]
	if last.Text != "Noted, tabs it is." || len(last.Tools) != 1 || last.Tools[0].Failed {
		t.Errorf("saved answer = %+v", last)
	}
}

func TestParallelToolCallsBothKept(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(
		agenttest.Reply{Text: "Saving both.", ToolCalls: []agenttest.ToolCall{
			{ID: "call_1", Name: "memory_write", Args: `{"kind":"fact","text":"The user lives in Lisbon."}`},
			{ID: "call_2", Name: "memory_write", Args: `{"kind":"preference","text":"The user drinks green tea."}`},
		}},
		agenttest.Reply{Text: "Got both."},
	)
	id := h.newChat()
	log := h.turn(id, "I live in Lisbon and I drink green tea.")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	var texts []string
	for _, e := range h.store(agent.ScopeGlobal, "").List() {
		texts = append(texts, e.Text)
	}
	slices.Sort(texts)
	if want := []string{"The user drinks green tea.", "The user lives in Lisbon."}; !slices.Equal(texts, want) {
		t.Fatalf("stored = %q, want %q", texts, want)
	}
	res := h.srv.Requests()[1].ToolResults()
	if len(res) != 2 || res["call_1"] == "" || res["call_2"] == "" {
		t.Errorf("tool results sent back = %v", res)
	}
	if got := log.text(); got != "Saving both.\n\nGot both." {
		t.Errorf("answer = %q", got)
	}
}

func TestFailingToolGoesBackToModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "c1", Name: "memory_write", Args: `{"kind":"mood","text":"x"}`},
			{ID: "c2", Name: "memory_forget", Args: `{"id":"nope"}`},
			{ID: "c3", Name: "memory_write", Args: `{"kind":"fact"`},
			{ID: "c4", Name: "launch_rockets", Args: `{}`},
		}},
		agenttest.Reply{Text: "Sorry, that did not work."},
	)
	id := h.newChat()
	log := h.turn(id, "remember something odd")
	if log.done.Err != nil {
		t.Fatalf("a failing tool ended the turn: %v", log.done.Err)
	}
	results := of[agent.ToolResult](log.events)
	if len(results) != 4 {
		t.Fatalf("%d results", len(results))
	}
	for _, r := range results {
		if r.Err == nil {
			t.Errorf("%s %s: no error", r.CallID, r.Name)
		}
	}
	for id, content := range h.srv.Requests()[1].ToolResults() {
		if !strings.HasPrefix(content, "Error: ") {
			t.Errorf("tool message %s = %q, want an error", id, content)
		}
	}
	if n := len(h.store(agent.ScopeGlobal, "").List()); n != 0 {
		t.Errorf("%d memories stored", n)
	}
}

func TestToolLoopIsBounded(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *agent.Options) { o.MaxSteps = 3 })
	search := agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "s", Name: "memory_search", Args: `{"query":"x"}`}}}
	h.srv.Respond = func(agenttest.Request) agenttest.Reply { return search } // never answers
	id := h.newChat()
	log := h.turn(id, "search forever")
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want MaxSteps = 3", len(reqs))
	}
	if len(reqs[1].Tools) == 0 || len(reqs[2].Tools) != 0 {
		t.Errorf("tools offered: %d, then %d on the last step (want none)", len(reqs[1].Tools), len(reqs[2].Tools))
	}
	if n := len(of[agent.ToolCall](log.events)); n != 2 {
		t.Errorf("%d tools run, want 2 (none on the last step, where tools were not offered)", n)
	}
	if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeBadResponse}) {
		t.Errorf("TurnDone.Err = %v, want bad_response", log.done.Err)
	}
}

func TestAutoRecallOffAndOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	for _, text := range []string{"The user's cat is named Miso.", "The user plays the cello on weekends.",
		"The user is allergic to peanuts."} {
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: text, Source: memory.SourceUser}); err != nil {
			t.Fatal(err)
		}
	}
	on, off := h.newChat(), h.newChat()
	if err := h.a.SetAutoRecall(off, false); err != nil {
		t.Fatal(err)
	}

	logOn := h.turn(on, "What is my cat named?")
	logOff := h.turn(off, "What is my cat named?")
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if sys := reqs[0].System(); !strings.Contains(sys, "Miso") {
		t.Errorf("auto-recall on: the prompt lacks the memory:\n%s", sys)
	}
	if sys := reqs[1].System(); strings.Contains(sys, "Miso") {
		t.Errorf("auto-recall off: the prompt has the memory:\n%s", sys)
	}
	rOn, rOff := of[agent.RecallDone](logOn.events), of[agent.RecallDone](logOff.events)
	if len(rOn) != 1 || rOn[0].Skipped || len(rOn[0].Hits) == 0 || !strings.Contains(rOn[0].Hits[0].Entry.Text, "Miso") ||
		rOn[0].Hits[0].Scope != agent.ScopeGlobal {
		t.Errorf("RecallDone on = %+v", rOn)
	}
	if len(rOff) != 1 || !rOff[0].Skipped || len(rOff[0].Hits) != 0 {
		t.Errorf("RecallDone off = %+v", rOff)
	}
	// RecallDone comes before the answer streams.
	if k := logOn.kinds(); len(k) < 3 || k[1] != "RecallDone" || k[2] != "Delta" {
		t.Errorf("events = %v", k)
	}
	// The answer records which memories it used, and they are marked used.
	c, _ := h.a.Chat(on)
	ans := c.Messages[len(c.Messages)-1]
	if len(ans.Recalled) == 0 || ans.Recalled[0].Entry.ID != rOn[0].Hits[0].Entry.ID {
		t.Errorf("answer.Recalled = %+v", ans.Recalled)
	}
	h.a.Wait() // the bookkeeping runs after TurnDone
	if e, _ := st.Get(rOn[0].Hits[0].Entry.ID); e.Uses != 1 {
		t.Errorf("recalled memory Uses = %d, want 1", e.Uses)
	}

	// The block is replaced each turn, never kept in the history.
	h.turn(on, "And what instrument do I play?")
	last := h.srv.Requests()[2]
	for _, m := range last.Messages[1:] {
		if strings.Contains(m.Content, "Miso") && m.Role != "user" {
			t.Errorf("recalled memory leaked into the history: %+v", m)
		}
	}
	if !strings.Contains(last.System(), "cello") {
		t.Errorf("second turn's prompt lacks its own recall:\n%s", last.System())
	}
}

func TestPinnedMemoriesInPrompt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	e, _, err := st.Add(memory.Entry{Kind: memory.KindPreference, Text: "Answer in British English.", Source: memory.SourceUser})
	if err != nil {
		t.Fatal(err)
	}
	id := h.newChat()
	h.turn(id, "hello")
	if strings.Contains(h.srv.Requests()[0].System(), "British English") {
		t.Fatal("an unpinned, unrelated memory is in the prompt")
	}
	pin := true
	if _, err := st.Update(e.ID, memory.Change{Pinned: &pin}); err != nil {
		t.Fatal(err)
	}
	h.turn(id, "hello again")
	if sys := h.srv.Requests()[1].System(); !strings.Contains(sys, "Pinned memories") || !strings.Contains(sys, "British English") {
		t.Errorf("the pinned memory is not in the prompt:\n%s", sys)
	}
}

func TestAgentsMDGlobalAndProject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	proj := t.TempDir()
	if err := os.MkdirAll(h.paths.ConfigDir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(h.paths.ConfigDir, "AGENTS.md"), "GLOBAL-RULE: be brief.")
	write(filepath.Join(proj, "AGENTS.md"), "PROJECT-RULE: this repo uses Go 1.26.")
	projMem, _, err := h.store(agent.ScopeProject, proj).Add(memory.Entry{Kind: memory.KindFact,
		Text: "The release branch of this project is called stable.", Source: memory.SourceUser})
	if err != nil {
		t.Fatal(err)
	}

	id := h.newChat()
	if err := h.a.SetProject(id, proj); err != nil {
		t.Fatal(err)
	}
	log := h.turn(id, "Which release branch do we use?")
	sys := h.srv.Requests()[0].System()
	g, p := strings.Index(sys, "GLOBAL-RULE"), strings.Index(sys, "PROJECT-RULE")
	if g < 0 || p < 0 || g > p {
		t.Fatalf("want the global then the project AGENTS.md in the prompt:\n%s", sys)
	}
	m := strings.Index(sys, "called stable")
	if m < p {
		t.Errorf("the project memory should be recalled after the instructions:\n%s", sys)
	}
	hits := of[agent.RecallDone](log.events)[0].Hits
	if len(hits) == 0 || hits[0].Entry.ID != projMem.ID || hits[0].Scope != agent.ScopeProject {
		t.Errorf("project recall = %+v", hits)
	}
	info := h.a.Instructions(proj)
	if !info.Global.Found || !info.Project.Found || info.Project.Truncated {
		t.Errorf("Instructions = %+v", info)
	}

	// An edit is used by the next turn and reported.
	write(filepath.Join(proj, "AGENTS.md"), "PROJECT-RULE-2: prefer table tests. Longer now.")
	log = h.turn(id, "next")
	if sys := h.srv.Requests()[1].System(); !strings.Contains(sys, "PROJECT-RULE-2") {
		t.Errorf("edited AGENTS.md not used:\n%s", sys)
	}
	if ev := of[agent.InstructionsChanged](log.events); len(ev) != 1 || ev[0].Path != filepath.Join(proj, "AGENTS.md") {
		t.Errorf("InstructionsChanged = %+v", ev)
	}

	// A huge AGENTS.md is cut with a warning.
	huge := strings.Repeat("filler line of instructions\n", 4000) + "TAIL-MARKER"
	write(filepath.Join(h.paths.ConfigDir, "AGENTS.md"), huge)
	log = h.turn(id, "again")
	sys = h.srv.Requests()[2].System()
	if strings.Contains(sys, "TAIL-MARKER") || !strings.Contains(sys, "only its first 64 KiB") {
		t.Errorf("huge AGENTS.md not cut with a warning (prompt %d bytes)", len(sys))
	}
	if ev := of[agent.InstructionsChanged](log.events); len(ev) != 1 || !ev[0].Truncated {
		t.Errorf("InstructionsChanged = %+v", ev)
	}
	if !h.a.Instructions("").Global.Truncated {
		t.Error("Instructions().Global.Truncated is false")
	}
}

func TestDistillationStoresMemories(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
	h.srv.Push(
		agenttest.Reply{Text: "Dark roast it is; I will keep that in mind for recommendations."},
		agenttest.Reply{Text: "Here is what I found:\n```json\n[{\"kind\":\"pref\",\"text\":\"The user likes dark roast coffee.\"}," +
			"{\"kind\":\"fact\",\"text\":\"The user grinds beans at home.\"}]\n```"},
	)
	id := h.newChat()
	log := h.turn(id, "I only drink dark roast coffee and I grind the beans at home every morning.")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	h.a.Wait()
	saved := h.next(func(e agent.Event) bool { _, ok := e.(agent.MemoriesSaved); return ok }).(agent.MemoriesSaved)
	if saved.Err != nil || len(saved.Entries) != 2 || saved.Scope != agent.ScopeGlobal || saved.ChatID != id {
		t.Fatalf("MemoriesSaved = %+v", saved)
	}
	list := h.store(agent.ScopeGlobal, "").List()
	if len(list) != 2 {
		t.Fatalf("store = %+v", list)
	}
	for _, e := range list {
		if e.Source != memory.SourceAuto {
			t.Errorf("%q: source %q, want auto", e.Text, e.Source)
		}
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Tools) != 0 || !strings.Contains(reqs[1].LastUser(), "dark roast coffee") ||
		!strings.Contains(reqs[1].System(), "JSON array") {
		t.Errorf("distillation request = %+v", reqs[len(reqs)-1])
	}

	// Small talk is skipped without a model call.
	h.turn(id, "thanks!")
	h.a.Wait()
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests after small talk, want 3 (no distillation)", n)
	}
}

func TestDistillationBadAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
	id := h.newChat()

	// Prose only: nothing to keep, nothing to report.
	h.srv.Push(agenttest.Reply{Text: "Sure, I can explain how goroutines are scheduled in detail."},
		agenttest.Reply{Text: "Nothing here is worth remembering."})
	h.turn(id, "explain how goroutines are scheduled by the runtime")
	h.a.Wait()
	if saved := of[agent.MemoriesSaved](h.drain()); len(saved) != 0 {
		t.Errorf("prose answer: MemoriesSaved = %+v", saved)
	}

	// Broken JSON: reported.
	h.srv.Push(agenttest.Reply{Text: "Channels are typed conduits between goroutines, safe to share."},
		agenttest.Reply{Text: `[{"kind":"fact","text":"The user is`})
	h.turn(id, "and how do channels work between goroutines?")
	h.a.Wait()
	saved := h.next(func(e agent.Event) bool { _, ok := e.(agent.MemoriesSaved); return ok }).(agent.MemoriesSaved)
	if saved.Err == nil || len(saved.Entries) != 0 {
		t.Errorf("MemoriesSaved = %+v, want an error", saved)
	}
	if n := len(h.store(agent.ScopeGlobal, "").List()); n != 0 {
		t.Errorf("%d memories stored", n)
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"Cancel", "context"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
			hold := make(chan struct{})
			defer close(hold)
			h.srv.Push(agenttest.Reply{Pieces: []string{"The first part", " and the rest"}, Hold: hold})
			id := h.newChat()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if err := h.a.Send(ctx, id, "Tell me a long story about dragons and knights"); err != nil {
				t.Fatal(err)
			}
			h.next(func(e agent.Event) bool { _, ok := e.(agent.Delta); return ok })
			if how == "Cancel" {
				h.a.Cancel(id)
			} else {
				cancel()
			}
			log := h.until(id)
			if !errors.Is(log.done.Err, context.Canceled) {
				t.Fatalf("TurnDone.Err = %v, want context.Canceled", log.done.Err)
			}
			h.a.Wait()
			c, _ := h.a.Chat(id)
			last := c.Messages[len(c.Messages)-1]
			if !last.Stopped || last.Text != "The first part" || last.Err != "" {
				t.Errorf("saved answer = %+v", last)
			}
			if n := len(h.srv.Requests()); n != 1 {
				t.Errorf("%d requests; a cancelled turn must not be distilled", n)
			}
			if h.a.Running(id) {
				t.Error("the chat still has a running turn")
			}
			// The chat accepts the next message.
			h.srv.Push(agenttest.Reply{Text: "ok"})
			if log := h.turn(id, "ok"); log.done.Err != nil {
				t.Errorf("next turn: %v", log.done.Err)
			}
		})
	}
}

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		replies  []agenttest.Reply
		code     agent.Code
		requests int
		says     string
	}{
		{"401", []agenttest.Reply{{Status: 401, ErrorType: "invalid_request_error", ErrorCode: "invalid_api_key",
			Message: "Incorrect API key provided"}}, agent.CodeAuth, 1, "key"},
		{"403", []agenttest.Reply{{Status: 403, Message: "not allowed"}}, agent.CodeAuth, 1, "key"},
		{"404", []agenttest.Reply{{Status: 404, ErrorCode: "model_not_found", Message: "The model `x` does not exist"}},
			agent.CodeModelNotFound, 1, "model"},
		{"429 exhausted", []agenttest.Reply{{Status: 429}, {Status: 429}, {Status: 429}, {Status: 429}},
			agent.CodeRateLimited, 4, "rate limit"},
		{"500 exhausted", []agenttest.Reply{{Status: 500}, {Status: 502}, {Status: 503}, {Status: 500}},
			agent.CodeServer, 4, "server error"},
		{"400 other", []agenttest.Reply{{Status: 400, Message: "temperature must be below 2"}},
			agent.CodeBadRequest, 1, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			h.srv.Push(tt.replies...)
			id := h.newChat()
			log := h.turn(id, "hello there")
			var ae *agent.Error
			if !errors.As(log.done.Err, &ae) || ae.Code != tt.code {
				t.Fatalf("TurnDone.Err = %v, want code %s", log.done.Err, tt.code)
			}
			if !errors.Is(log.done.Err, &agent.Error{Code: tt.code}) {
				t.Error("errors.Is by code fails")
			}
			if !strings.Contains(strings.ToLower(ae.Message), tt.says) {
				t.Errorf("message %q does not mention %q", ae.Message, tt.says)
			}
			if ae.Unwrap() == nil {
				t.Error("no cause")
			}
			if n := len(h.srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			c, _ := h.a.Chat(id)
			if last := c.Messages[len(c.Messages)-1]; last.Err != ae.Message {
				t.Errorf("saved answer = %+v", last)
			}
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Status: 429, Message: "Rate limit reached"}, agenttest.Reply{Status: 503},
		agenttest.Reply{Text: "Finally."})
	id := h.newChat()
	log := h.turn(id, "hello")
	if log.done.Err != nil || log.text() != "Finally." {
		t.Fatalf("turn: %v, %q", log.done.Err, log.text())
	}
	if n := len(of[agent.Notice](log.events)); n != 2 {
		t.Errorf("%d retry notices, want 2", n)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *agent.Options) { o.RetryDelay = time.Hour })
	h.srv.Push(agenttest.Reply{Status: 503})
	id := h.newChat()
	if err := h.a.Send(context.Background(), id, "hello"); err != nil {
		t.Fatal(err)
	}
	h.next(func(e agent.Event) bool { n, ok := e.(agent.Notice); return ok && strings.Contains(n.Text, "retrying") })
	h.a.Cancel(id)
	if log := h.until(id); !errors.Is(log.done.Err, context.Canceled) {
		t.Errorf("TurnDone.Err = %v, want context.Canceled", log.done.Err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestEndpointUnreachable(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer()
	base := srv.BaseURL()
	srv.Close() // nothing listens there any more
	h := newHarness(t, func(c *agent.Config) { c.BaseURL = base }, nil)
	id := h.newChat()
	log := h.turn(id, "hello")
	if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeUnreachable}) {
		t.Fatalf("TurnDone.Err = %v, want unreachable", log.done.Err)
	}
}

// TestEndpointTimeout: an endpoint that accepts the connection and never
// answers is "unreachable" once the HTTP client's timeout, or the context
// given to Models, runs out.
func TestEndpointTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	client := srv.Client()
	client.Timeout = 50 * time.Millisecond
	h := newHarness(t, func(c *agent.Config) { c.BaseURL = srv.URL + "/v1" },
		func(o *agent.Options) { o.HTTPClient = client })
	a := h.a
	id := h.newChat()
	log := h.turn(id, "hello")
	var ae *agent.Error
	if !errors.As(log.done.Err, &ae) || ae.Code != agent.CodeUnreachable {
		t.Fatalf("TurnDone.Err = %v, want unreachable", log.done.Err)
	}
	if !strings.Contains(ae.Message, "cannot be reached") {
		t.Errorf("message %q", ae.Message)
	}
	if c, _ := a.Chat(id); c.Messages[len(c.Messages)-1].Stopped {
		t.Error("a timeout was saved as a stopped answer")
	}

	client.Timeout = 0 // the turn is over: now the context's deadline is what runs out
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := a.Models(ctx); !errors.Is(err, &agent.Error{Code: agent.CodeUnreachable}) {
		t.Errorf("Models = %v, want unreachable", err)
	}
}

func TestNoEndpointConfigured(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.BaseURL, c.Model = "", "" }, nil)
	id := h.newChat()
	log := h.turn(id, "hello")
	if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeNoEndpoint}) {
		t.Fatalf("TurnDone.Err = %v", log.done.Err)
	}
	if _, err := h.a.Models(context.Background()); !errors.Is(err, &agent.Error{Code: agent.CodeNoEndpoint}) {
		t.Errorf("Models = %v", err)
	}
	// The rest still works: chats, memory.
	if _, _, err := h.store(agent.ScopeGlobal, "").Add(memory.Entry{Kind: memory.KindFact, Text: "works offline",
		Source: memory.SourceUser}); err != nil {
		t.Error(err)
	}
}

func TestToolsUnsupportedRetriesWithout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Status: 400, Message: "registry.ollama.ai/library/gemma:2b does not support tools"},
		agenttest.Reply{Text: "Plain answer."})
	id := h.newChat()
	log := h.turn(id, "hello")
	if log.done.Err != nil || log.text() != "Plain answer." {
		t.Fatalf("turn: %v %q", log.done.Err, log.text())
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) == 0 || len(reqs[1].Tools) != 0 {
		t.Fatalf("requests: %d, tools %v then %v", len(reqs), reqs[0].Tools, reqs[len(reqs)-1].Tools)
	}
	if strings.Contains(reqs[1].System(), "memory_write") {
		t.Error("the prompt still describes the tools")
	}
	notices := of[agent.Notice](log.events)
	if len(notices) != 1 || !strings.Contains(notices[0].Text, "does not support tools") {
		t.Errorf("notices = %+v", notices)
	}
}

func TestContextTooLongCompactsAndRetries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Text: "one"}, agenttest.Reply{Text: "two"})
	id := h.newChat()
	h.turn(id, "first message about apples")
	h.turn(id, "second message about pears")
	h.srv.Push(
		agenttest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorCode: "context_length_exceeded",
			Message: "This model's maximum context length is 8192 tokens."},
		agenttest.Reply{Text: "We talked about apples and pears."},
		agenttest.Reply{Text: "Third answer."},
	)
	log := h.turn(id, "third message")
	if log.done.Err != nil || log.text() != "Third answer." {
		t.Fatalf("turn: %v %q", log.done.Err, log.text())
	}
	reqs := h.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	if !strings.Contains(reqs[3].LastUser(), "apples") || !strings.Contains(reqs[3].System(), "Summarise") {
		t.Errorf("compaction request = %+v", reqs[3])
	}
	retry := reqs[4]
	if !strings.Contains(retry.System(), "We talked about apples and pears.") {
		t.Errorf("retry lacks the summary:\n%s", retry.System())
	}
	if len(retry.Messages) != 2 || retry.LastUser() != "third message" {
		t.Errorf("retry messages = %+v", retry.Messages)
	}
	c, _ := h.a.Chat(id)
	var roles []string
	for _, m := range c.Messages {
		roles = append(roles, m.Role)
	}
	want := []string{"user", "assistant", "user", "assistant", "summary", "user", "assistant"}
	if !slices.Equal(roles, want) {
		t.Errorf("chat roles = %v, want %v", roles, want)
	}

	// Too long again, even after compacting: reported, not looped.
	h.srv.Push(agenttest.Reply{Status: 400, ErrorCode: "context_length_exceeded", Message: "maximum context length"},
		agenttest.Reply{Text: "Summary again."},
		agenttest.Reply{Status: 400, ErrorCode: "context_length_exceeded", Message: "maximum context length"})
	log = h.turn(id, "fourth")
	if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeContextTooLong}) {
		t.Errorf("TurnDone.Err = %v", log.done.Err)
	}
}

func TestCompactionOverBudget(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.ContextChars = 1000 }, nil)
	h.srv.Respond = func(r agenttest.Request) agenttest.Reply {
		if strings.Contains(r.System(), "Summarise") {
			return agenttest.Reply{Text: "SUMMARY: the user asked about topics A to D."}
		}
		return agenttest.Reply{Text: strings.Repeat("answer ", 30)}
	}
	id := h.newChat()
	for _, topic := range []string{"A", "B", "C", "D"} {
		if log := h.turn(id, "Tell me about topic "+topic+" "+strings.Repeat("please ", 20)); log.done.Err != nil {
			t.Fatal(log.done.Err)
		}
	}
	var compactions int
	for _, r := range h.srv.Requests() {
		if strings.Contains(r.System(), "Summarise") {
			compactions++
		}
	}
	if compactions != 1 {
		t.Fatalf("%d compaction calls, want 1", compactions)
	}
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.System(), "SUMMARY: the user asked") {
		t.Errorf("the last request lacks the summary")
	}
	if strings.Contains(string(last.Body), "topic A") {
		t.Errorf("the last request still carries the summarised messages")
	}
	c, _ := h.a.Chat(id)
	if c.Messages[0].Text == "" || c.Messages[0].Role != agent.RoleUser {
		t.Errorf("the older messages must stay in the chat: %+v", c.Messages[0])
	}
	var summaries int
	for _, m := range c.Messages {
		if m.Role == agent.RoleSummary {
			summaries++
		}
	}
	if summaries != 1 {
		t.Errorf("%d summaries in the chat", summaries)
	}
}

func TestChatManagement(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.AutoRecall = false }, nil)
	a := h.newChat()
	b := h.newChat()
	if c, _ := h.a.Chat(a); c.AutoRecall {
		t.Error("new chat ignores the config's auto-recall default")
	}
	h.srv.Push(agenttest.Reply{Text: "x"})
	h.turn(a, "make a the newest")
	if got := h.a.Chats(); len(got) != 2 || got[0].ID != a || got[1].ID != b {
		t.Errorf("Chats = %+v", got)
	}
	if err := h.a.RenameChat(a, "  Renamed  "); err != nil {
		t.Fatal(err)
	}
	if c, _ := h.a.Chat(a); c.Title != "Renamed" {
		t.Errorf("title = %q", c.Title)
	}
	proj := t.TempDir()
	if err := h.a.SetProject(b, proj); err != nil {
		t.Fatal(err)
	}
	if err := h.a.SetProject(a, filepath.Join(proj, "missing")); err == nil {
		t.Error("pinned a folder that does not exist")
	}
	if got := h.a.RecentProjects(); !slices.Equal(got, []string{proj}) {
		t.Errorf("RecentProjects = %v", got)
	}
	if err := h.a.DeleteChat(b); err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.Chat(b); !errors.Is(err, agent.ErrChatNotFound) {
		t.Errorf("deleted chat: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.paths.ChatsDir(), b+".json")); !os.IsNotExist(err) {
		t.Errorf("chat file still there: %v", err)
	}
	if err := h.a.RenameChat("../../etc/passwd", "x"); !errors.Is(err, agent.ErrChatNotFound) {
		t.Errorf("rename of a bad ID = %v", err)
	}
}

func TestChatSaveFailureReportedBeforeTurnDone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	id := h.newChat()
	// The chat's file cannot be replaced: a directory with a file in it
	// stands in its place.
	path := filepath.Join(h.paths.ChatsDir(), id+".json")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	log := h.turn(id, "hello there")
	if log.done.Err == nil || !strings.Contains(log.done.Err.Error(), id) {
		t.Errorf("TurnDone.Err = %v, want the failed save", log.done.Err)
	}
	if k := log.kinds(); !slices.Contains(k, "Notice") || k[len(k)-1] != "TurnDone" {
		t.Errorf("events = %v, want a Notice of the failed save before TurnDone", k)
	}
	if c, _ := h.a.Chat(id); len(c.Messages) != 2 {
		t.Errorf("the chat in memory has %d messages, want 2", len(c.Messages))
	}
}

func TestModelsAndSetConfig(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Models = []string{"m1", "m2"}
	got, err := h.a.Models(context.Background())
	if err != nil || !slices.Equal(got, []string{"m1", "m2"}) {
		t.Fatalf("Models = %v, %v", got, err)
	}
	c := h.a.Config()
	c.Model = "m2"
	if err := h.a.SetConfig(c); err != nil {
		t.Fatal(err)
	}
	id := h.newChat()
	h.turn(id, "hi there friend")
	if m := h.srv.Requests()[0].Model; m != "m2" {
		t.Errorf("the turn used model %q after SetConfig", m)
	}
	loaded, err := agent.LoadConfig(h.paths.ConfigFile(), nil)
	if err != nil || loaded.Model != "m2" {
		t.Errorf("saved config = %+v, %v", loaded, err)
	}
}

func TestProjectScopedMemories(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
	proj := t.TempDir()
	write := agenttest.ToolCall{ID: "w", Name: "memory_write",
		Args: `{"kind":"fact","text":"This project deploys with make release.","scope":"project"}`}

	// Without a pinned folder a project write fails back to the model.
	plain := h.newChat()
	h.srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{write}}, agenttest.Reply{Text: "ok"})
	log := h.turn(plain, "ok")
	if r := of[agent.ToolResult](log.events); len(r) != 1 || r[0].Err == nil {
		t.Errorf("project write without a project: %+v", r)
	}

	id := h.newChat()
	if err := h.a.SetProject(id, proj); err != nil {
		t.Fatal(err)
	}
	h.srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{write}},
		agenttest.Reply{Text: "Noted how this project is released, and that you like short release notes."},
		agenttest.Reply{Text: `[{"kind":"preference","text":"The user likes short release notes.","scope":"global"},` +
			`{"kind":"fact","text":"Releases of this project are tagged vX.Y.Z.","scope":"project"}]`})
	log = h.turn(id, "We deploy with make release, tags look like v1.2.3, and keep release notes short.")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	h.a.Wait()
	var saved []agent.MemoriesSaved
	for len(saved) < 2 {
		saved = append(saved, h.next(func(e agent.Event) bool { _, ok := e.(agent.MemoriesSaved); return ok }).(agent.MemoriesSaved))
	}
	if saved[0].Scope != agent.ScopeGlobal || saved[1].Scope != agent.ScopeProject {
		t.Errorf("MemoriesSaved scopes = %s, %s", saved[0].Scope, saved[1].Scope)
	}
	var projTexts []string
	for _, e := range h.store(agent.ScopeProject, proj).List() {
		projTexts = append(projTexts, e.Text)
	}
	slices.Sort(projTexts)
	want := []string{"Releases of this project are tagged vX.Y.Z.", "This project deploys with make release."}
	if !slices.Equal(projTexts, want) {
		t.Errorf("project store = %q, want %q", projTexts, want)
	}
	global := h.store(agent.ScopeGlobal, "").List()
	if len(global) != 1 || global[0].Text != "The user likes short release notes." {
		t.Errorf("global store = %+v", global)
	}
	if _, err := os.Stat(h.paths.ProjectMemory(proj)); err != nil {
		t.Errorf("project memory file: %v", err)
	}
}
