package agent_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

// The tests of this file play the ways real endpoints behave on the fake
// server, through the real go-openai adapter.

const thought = "The user asks about Go. Go has gofmt; they like tabs."

func TestReasoningKeptApartAndNeverSentBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reply agenttest.Reply
	}{
		{"think tag split across chunks", agenttest.Reply{Pieces: []string{"<thi", "nk>The user asks about Go. ",
			"Go has gofmt; they like tabs.</thi", "nk>\n\nUse gofmt: it ", "indents with tabs."}}},
		{"reasoning_content", agenttest.Reply{Reasoning: thought, Text: "Use gofmt: it indents with tabs."}},
		{"reasoning", agenttest.Reply{Reasoning: thought, ReasoningField: "reasoning",
			Text: "Use gofmt: it indents with tabs."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
			h.srv.Push(tc.reply, agenttest.Reply{Text: "[]"}, agenttest.Reply{Text: "Second answer."})
			id := h.newChat()
			log := h.turn(id, "How should I indent my Go code, and which tool does it for me?")
			if log.done.Err != nil {
				t.Fatal(log.done.Err)
			}
			if log.text() != "Use gofmt: it indents with tabs." || log.reasoning() != thought {
				t.Errorf("streamed text %q, reasoning %q", log.text(), log.reasoning())
			}
			kinds := log.kinds()
			want := []string{"TurnStarted", "RecallDone", "ThinkingStarted", "ReasoningDelta", "ThinkingDone",
				"Delta", "TurnDone"}
			if !slices.Equal(kinds, want) {
				t.Errorf("events %v, want %v", kinds, want)
			}
			done := of[agent.ThinkingDone](log.events)[0]
			c, _ := h.a.Chat(id)
			ans := c.Messages[1]
			if ans.Text != "Use gofmt: it indents with tabs." || ans.Reasoning != thought || ans.ThinkingTime <= 0 ||
				ans.ThinkingTime != done.Total || done.Took != done.Total {
				t.Errorf("saved answer %+v; ThinkingDone %+v", ans, done)
			}
			b, err := os.ReadFile(filepath.Join(h.paths.ChatsDir(), id+".json"))
			if err != nil || !strings.Contains(string(b), `"reasoning": "The user asks about Go.`) {
				t.Errorf("the chat file lacks the reasoning (%v):\n%s", err, b)
			}
			h.a.Wait() // distillation
			h.turn(id, "thanks, and what about imports? Tell me how goimports groups them.")
			h.a.Wait()
			reqs := h.srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want answer, distillation, answer, distillation", len(reqs))
			}
			for i, r := range reqs[1:] {
				if strings.Contains(string(r.Body), "gofmt; they like") || strings.Contains(string(r.Body), "think>") {
					t.Errorf("request %d carries the reasoning: %s", i+2, r.Body)
				}
			}
			if !strings.Contains(reqs[1].LastUser(), "indents with tabs") {
				t.Errorf("distillation did not get the answer: %q", reqs[1].LastUser())
			}
		})
	}
}

// TestDeepSeekReplaysReasoningWithinTheTurn: DeepSeek's thinking mode
// wants the reasoning_content of a tool call back in the follow-up requests
// of the turn, and rejects it on later turns.
func TestDeepSeekReplaysReasoningWithinTheTurn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		field  string
		replay bool
	}{{"reasoning_content", true}, {"reasoning", false}} {
		t.Run(tc.field, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			h.srv.Push(
				agenttest.Reply{Reasoning: "I should look it up.", ReasoningField: tc.field,
					ToolCalls: []agenttest.ToolCall{{ID: "c1", Name: "memory_search", Args: `{"query":"editor"}`}}},
				agenttest.Reply{Reasoning: "Nothing found.", ReasoningField: tc.field, Text: "I do not know yet."},
				agenttest.Reply{Text: "Noted."},
			)
			id := h.newChat()
			log := h.turn(id, "Which editor do I use?")
			if log.done.Err != nil {
				t.Fatal(log.done.Err)
			}
			if n := len(of[agent.ThinkingStarted](log.events)); n != 2 {
				t.Errorf("%d ThinkingStarted, want one per call", n)
			}
			c, _ := h.a.Chat(id)
			if r := c.Messages[1].Reasoning; r != "I should look it up.\n\nNothing found." || r != log.reasoning() {
				t.Errorf("saved reasoning %q, streamed %q", r, log.reasoning())
			}
			h.turn(id, "I use Helix.")
			reqs := h.srv.Requests()
			var carried []string
			for _, m := range reqs[1].Messages {
				if m.Role == "assistant" {
					carried = append(carried, m.ReasoningContent)
				}
			}
			want := []string{""}
			if tc.replay {
				want = []string{"I should look it up."}
			}
			if !slices.Equal(carried, want) {
				t.Errorf("follow-up carries reasoning %q, want %q", carried, want)
			}
			for _, m := range reqs[2].Messages {
				if m.ReasoningContent != "" {
					t.Errorf("a later turn carries reasoning_content: %+v", m)
				}
			}
		})
	}
}

func TestInterruptedStreamIsKeptMarkedAndRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
	h.srv.Push(agenttest.Reply{Text: "The first half of a long answer that never ends", CutAfter: 6})
	id := h.newChat()
	log := h.turn(id, "Tell me everything about the Go scheduler and its run queues")
	var ae *agent.Error
	if !errors.As(log.done.Err, &ae) || ae.Code != agent.CodeInterrupted || !log.done.Interrupted ||
		!strings.Contains(ae.Message, "Retry") {
		t.Fatalf("TurnDone = %+v", log.done)
	}
	h.a.Wait()
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests: an interrupted answer was distilled", n)
	}
	c, _ := h.a.Chat(id)
	if ans := c.Messages[1]; !ans.Interrupted || ans.Text != log.text() || ans.Text == "" || ans.Err == "" {
		t.Errorf("saved answer %+v (streamed %q)", ans, log.text())
	}

	h.srv.Push(agenttest.Reply{Empty: true}) // the first retry fails too
	if err := h.a.Retry(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if log := h.until(id); !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeBadResponse}) {
		t.Fatalf("first retry: %v", log.done.Err)
	}
	h.srv.Push(agenttest.Reply{Text: "The whole answer."}, agenttest.Reply{Text: "[]"})
	if err := h.a.Retry(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if log := h.until(id); log.done.Err != nil || log.text() != "The whole answer." {
		t.Fatalf("retry: %v %q", log.done.Err, log.text())
	}
	h.a.Wait()
	reqs := h.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want answer, two retries, distillation", len(reqs))
	}
	if users := countRole(reqs[2].Messages, "user"); users != 1 || countRole(reqs[2].Messages, "assistant") != 0 {
		t.Errorf("the retry sent %+v", reqs[2].Messages)
	}
	c, _ = h.a.Chat(id)
	var roles []string
	for _, m := range c.Messages {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []string{"user", "assistant", "assistant", "assistant"}) ||
		c.Messages[3].Text != "The whole answer." || c.Messages[3].ReplyTo != c.Messages[0].ID {
		t.Errorf("chat %v", roles)
	}
	if err := h.a.Retry(context.Background(), id); err == nil {
		t.Error("Retry of an answer that did not fail was accepted")
	}
}

func countRole(msgs []agenttest.Message, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

func TestEmptyAndSilentStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		reply       agenttest.Reply
		code        agent.Code
		says        string
		interrupted bool
	}{
		{"empty", agenttest.Reply{Empty: true}, agent.CodeBadResponse, "empty answer", false},
		{"finish with nothing", agenttest.Reply{}, agent.CodeBadResponse, "without an answer", false},
		{"no first byte", agenttest.Reply{Silent: true}, agent.CodeTimeout, "did not start answering within 50ms", false},
		{"idle", agenttest.Reply{Text: "Some of it, then silence", Hold: make(chan struct{})}, agent.CodeTimeout,
			"stopped sending for 50ms", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(c *agent.Config) {
				// The timeout not under test is long, so a slow machine
				// does not trip it.
				c.StreamIdleTimeout, c.FirstByteTimeout = 0.05, 30
				if tc.reply.Silent {
					c.StreamIdleTimeout, c.FirstByteTimeout = 30, 0.05
				}
			}, nil)
			h.srv.Push(tc.reply)
			id := h.newChat()
			log := h.turn(id, "hello")
			var ae *agent.Error
			if !errors.As(log.done.Err, &ae) || ae.Code != tc.code || !strings.Contains(ae.Message, tc.says) ||
				log.done.Interrupted != tc.interrupted {
				t.Fatalf("TurnDone = %+v", log.done)
			}
			c, _ := h.a.Chat(id)
			if ans := c.Messages[len(c.Messages)-1]; ans.Err != ae.Message || ans.Interrupted != tc.interrupted ||
				ans.Text != log.text() {
				t.Errorf("saved answer %+v", ans)
			}
		})
	}
}

func TestAnswerOverTheLimitIsCut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.Distill, c.MaxAnswerBytes = true, 64<<10 }, nil)
	h.srv.Push(agenttest.Reply{Text: strings.Repeat("All work and no play. ", 10000), PieceSize: 16 << 10})
	id := h.newChat()
	log := h.turn(id, "Write the longest text you can about work and play")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	notices := of[agent.Notice](log.events)
	if len(notices) != 1 || !strings.Contains(notices[0].Text, "reached 64 KB and was cut") {
		t.Errorf("notices %+v", notices)
	}
	c, _ := h.a.Chat(id)
	if ans := c.Messages[1]; !ans.Cut || len(ans.Text) != 64<<10 {
		t.Errorf("saved answer cut %v, %d bytes", ans.Cut, len(ans.Text))
	}
	h.a.Wait()
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests: a cut answer was distilled", n)
	}
}

// TestRetryAfterIsHonoured: the endpoint's Retry-After, in seconds or as
// an HTTP date, reaches the retry wait (capped at a minute); how long the
// wait lasts is TestRetryWaits's, in fake time.
func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil) // RetryDelay is 1ms
	id := h.newChat()
	for _, tc := range []struct{ header, says string }{
		{"30", "retrying in 30s, as it asked"},
		{time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), "retrying in 1m0s, as it asked"},
	} {
		h.srv.Push(agenttest.Reply{Status: 429, Message: "Rate limit reached", RetryAfter: tc.header})
		if err := h.a.Send(context.Background(), id, "hello"); err != nil {
			t.Fatal(err)
		}
		n := h.next(func(e agent.Event) bool { _, ok := e.(agent.Notice); return ok }).(agent.Notice)
		if !strings.Contains(n.Text, tc.says) {
			t.Errorf("Retry-After %s: notice %q", tc.header, n.Text)
		}
		h.a.Cancel(id)
		if log := h.until(id); !errors.Is(log.done.Err, context.Canceled) {
			t.Errorf("Retry-After %s: TurnDone.Err = %v, want canceled in the wait", tc.header, log.done.Err)
		}
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (none retried)", n)
	}
}

func TestErrorsSayWhatTheServerSaid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reply agenttest.Reply
		code  agent.Code
		ours  string
	}{
		{agenttest.Reply{Status: 400, Message: "max_tokens is too large: 100000. This model supports at most 8192"},
			agent.CodeBadRequest, "refused the request (400)"},
		{agenttest.Reply{Status: 422, Body: `{"detail":"max_tokens is too large: 100000. This model supports at most 8192"}`},
			agent.CodeBadRequest, "refused the request (422)"},
		{agenttest.Reply{Status: 404, Body: `{"error":"max_tokens is too large: 100000. This model supports at most 8192"}`},
			agent.CodeModelNotFound, "was not found (404)"},
	} {
		h := newHarness(t, nil, nil)
		h.srv.Push(tc.reply)
		log := h.turn(h.newChat(), "hello")
		var ae *agent.Error
		if !errors.As(log.done.Err, &ae) || ae.Code != tc.code || !strings.Contains(ae.Message, tc.ours) ||
			!strings.Contains(ae.Message, "The server said: max_tokens is too large: 100000. This model supports at most 8192") {
			t.Errorf("%d: TurnDone.Err = %v", tc.reply.Status, log.done.Err)
		}
	}
}

// TestServerBodiesMapToRetries: refusals in the words (and body shapes)
// of Ollama take the retry-without-tools and compact-and-retry paths.
func TestServerBodiesMapToRetries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Status: 400, Body: `{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}`},
		agenttest.Reply{Text: "Plain answer."})
	id := h.newChat()
	if log := h.turn(id, "hello"); log.done.Err != nil || log.text() != "Plain answer." {
		t.Fatalf("turn: %v %q", log.done.Err, log.text())
	}
	if reqs := h.srv.Requests(); len(reqs) != 2 || len(reqs[1].Tools) != 0 {
		t.Errorf("%d requests; the retry offered tools", len(reqs))
	}
	h.srv.Push(agenttest.Reply{Status: 500, Body: `{"error":"prompt too long; exceeded max context length by 812 tokens"}`},
		agenttest.Reply{Text: "We said hello."}, agenttest.Reply{Text: "Second answer."})
	if log := h.turn(id, "and now?"); log.done.Err != nil || log.text() != "Second answer." {
		t.Fatalf("turn: %v %q", log.done.Err, log.text())
	}
	c, _ := h.a.Chat(id)
	if c.Messages[2].Role != agent.RoleSummary || c.Messages[2].Text != "We said hello." {
		t.Errorf("no compaction: %+v", c.Messages)
	}
}

func TestQuirkyToolCallsRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Text: "Saving both.", ArgsAsObject: true, UsageInFinish: true, ToolCalls: []agenttest.ToolCall{
		{Name: "memory_write", Args: `{"kind":"preference","text":"The user likes tabs."}`},
		{Name: "memory_write", Args: `{"kind":"fact","text":"The user lives in Lyon."}`},
	}}, agenttest.Reply{Text: "Saved."})
	id := h.newChat()
	log := h.turn(id, "I like tabs and I live in Lyon.")
	if log.done.Err != nil || log.text() != "Saving both.\n\nSaved." {
		t.Fatalf("turn: %v %q", log.done.Err, log.text())
	}
	if n := len(h.store(agent.ScopeGlobal, "").List()); n != 2 {
		t.Errorf("%d memories saved, want 2", n)
	}
	follow := h.srv.Requests()[1]
	results := follow.ToolResults()
	var ids []string
	for _, m := range follow.Messages {
		for _, tc := range m.ToolCalls {
			ids = append(ids, tc.ID)
			if _, ok := results[tc.ID]; !ok || tc.ID == "" {
				t.Errorf("tool call %q has no result", tc.ID)
			}
		}
	}
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("tool call ids %q", ids)
	}
	if log.done.Usage.PromptTokens == 0 {
		t.Error("usage of the finish chunk lost")
	}
}

func TestPlainTextAnswerToToolsAndRefusedStreamOptions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.RejectStreamOptions = true
	h.srv.Push(agenttest.Reply{Text: "I can't call tools, but: use tabs.", Finish: "tool_calls"})
	id := h.newChat()
	log := h.turn(id, "remember that I like tabs")
	if log.done.Err != nil || log.text() != "I can't call tools, but: use tabs." {
		t.Fatalf("turn: %v %q", log.done.Err, log.text())
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || !reqs[0].StreamOptions || reqs[1].StreamOptions || len(reqs[1].Tools) == 0 {
		t.Errorf("%d requests", len(reqs))
	}
}

// TestReasoningModelDistills: a reasoning model's distillation answer
// thinks first; only the answer after the thinking is parsed.
func TestReasoningModelDistills(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *agent.Config) { c.Distill = true }, nil)
	h.srv.Push(agenttest.Reply{Text: "<think>A greeting with a fact.</think>Nice to meet you."},
		agenttest.Reply{Text: `<think>The user gave their city: a fact. [not this]</think>` +
			`[{"kind":"fact","text":"The user lives in Lyon."}]`})
	id := h.newChat()
	if log := h.turn(id, "Hello, I am Ana and I live in Lyon."); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	saved := h.next(func(e agent.Event) bool { _, ok := e.(agent.MemoriesSaved); return ok }).(agent.MemoriesSaved)
	if saved.Err != nil || len(saved.Entries) != 1 || saved.Entries[0].Text != "The user lives in Lyon." {
		t.Errorf("saved %+v", saved)
	}
}
