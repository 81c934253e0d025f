package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"engram/agent"
	"engram/agent/llm"
	"engram/agent/prompts"
)

// script is a Completer that plays scripted steps, one per call, and
// records the requests: the turn loop without HTTP.
type script struct {
	t     *testing.T
	mu    sync.Mutex
	steps []step
	reqs  []llm.Request
	dials []string // base URL and key of each Connect
}

// step is one scripted call: its text arrives in pieces, then err (if any)
// ends it, with what was streamed as the reply's text.
type step struct {
	pieces []string
	calls  []llm.ToolCall
	usage  llm.Usage
	err    error
}

// Complete implements llm.Completer. A chat's title is not asked for
// in the script: the chat keeps its first title.
func (s *script) Complete(_ context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	if len(req.Messages) > 0 && req.Messages[0].Content == prompts.Title {
		return llm.Reply{}, errors.New("no title scripted")
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.steps) == 0 {
		s.mu.Unlock()
		s.t.Errorf("call %d: the script is done", len(s.reqs))
		return llm.Reply{}, errors.New("the script is done")
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	s.mu.Unlock()
	reply := llm.Reply{ToolCalls: st.calls, Usage: st.usage, Finish: "stop"}
	if len(st.calls) > 0 {
		reply.Finish = "tool_calls"
	}
	for _, p := range st.pieces {
		reply.Text += p
		onDelta(llm.Delta{Text: p})
	}
	return reply, st.err
}

// Models implements llm.Completer.
func (s *script) Models(context.Context) ([]string, error) { return []string{"scripted"}, nil }

// requests returns the requests so far.
func (s *script) requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.reqs...)
}

// newScripted is a harness whose agent calls the script through
// Options.Connect; its HTTP server must see no request.
func newScripted(t *testing.T, maxSteps int, steps ...step) (*harness, *script) {
	t.Helper()
	s := &script{t: t, steps: steps}
	h := newHarness(t, nil, func(o *agent.Options) {
		o.MaxSteps = maxSteps
		o.Connect = func(ep llm.Endpoint) llm.Completer {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.dials = append(s.dials, ep.BaseURL+" "+ep.APIKey)
			return s
		}
	})
	t.Cleanup(func() {
		if n := len(h.srv.Requests()); n != 0 {
			t.Errorf("%d HTTP requests past the injected Completer", n)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.steps) != 0 {
			t.Errorf("%d scripted steps left", len(s.steps))
		}
	})
	return h, s
}

// refusal is an error answer of the endpoint.
func refusal(status int, code, msg string) error {
	return &llm.StatusError{Status: status, Code: code, Message: msg}
}

// offered counts the tools each request offered.
func offered(reqs []llm.Request) []int {
	var n []int
	for _, r := range reqs {
		n = append(n, len(r.Tools))
	}
	return n
}

func TestLoopToolRoundTrip(t *testing.T) {
	t.Parallel()
	write := llm.ToolCall{ID: "w1", Name: "memory_write", Args: `{"kind":"fact","text":"The user's cat is Tom."}`}
	h, s := newScripted(t, 0,
		step{calls: []llm.ToolCall{write}, usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}},
		step{pieces: []string{"Noted, ", "Tom."}, usage: llm.Usage{PromptTokens: 150, CompletionTokens: 3}})
	id := h.newChat()
	log := h.turn(id, "My cat is called Tom.")
	if log.done.Err != nil || log.text() != "Noted, Tom." {
		t.Fatalf("turn: %v %q", log.done.Err, log.text())
	}
	want := []string{"TurnStarted", "RecallDone", "ToolCall", "ToolResult", "Delta", "TurnDone"}
	if got := log.kinds(); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if log.done.Usage != (agent.Usage{PromptTokens: 250, CompletionTokens: 13}) {
		t.Errorf("usage = %+v, want both calls summed", log.done.Usage)
	}
	list := h.store(agent.ScopeGlobal, "").List()
	if len(list) != 1 || list[0].Text != "The user's cat is Tom." {
		t.Fatalf("store = %+v", list)
	}
	cfg := h.a.Config()
	if len(s.dials) != 1 || s.dials[0] != cfg.BaseURL+" "+cfg.APIKey {
		t.Errorf("Connect calls = %q, want one for the configured endpoint", s.dials)
	}
	reqs := s.requests()
	if len(reqs) != 2 || reqs[0].Model != cfg.Model || len(reqs[0].Tools) == 0 {
		t.Fatalf("requests = %+v", reqs)
	}
	msgs := reqs[1].Messages
	if len(msgs) < 2 {
		t.Fatalf("second request = %+v", msgs)
	}
	call, result := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if call.Role != "assistant" || len(call.ToolCalls) != 1 || call.ToolCalls[0] != write {
		t.Errorf("the tool call sent back = %+v", call)
	}
	if result.Role != "tool" || result.ToolCallID != "w1" || !strings.Contains(result.Content, list[0].ID) {
		t.Errorf("the tool result sent back = %+v, want it to name %s", result, list[0].ID)
	}
}

func TestLoopToolsUnsupported(t *testing.T) {
	t.Parallel()
	t.Run("asked again without tools", func(t *testing.T) {
		h, s := newScripted(t, 0,
			step{err: refusal(400, "", "registry.ollama.ai/library/gemma:2b does not support tools")},
			// Tools called anyway, with text, are not run: the text is the answer.
			step{pieces: []string{"Plain answer."}, calls: []llm.ToolCall{{ID: "x", Name: "memory_search",
				Args: `{"query":"q"}`}}})
		log := h.turn(h.newChat(), "hello")
		if log.done.Err != nil || log.text() != "Plain answer." {
			t.Fatalf("turn: %v %q", log.done.Err, log.text())
		}
		reqs := s.requests()
		if got := offered(reqs); len(got) != 2 || got[0] == 0 || got[1] != 0 {
			t.Errorf("tools offered per request = %v, want some then none", got)
		}
		if n := len(of[agent.ToolCall](log.events)); n != 0 {
			t.Errorf("%d tools run that were not offered", n)
		}
		if n := of[agent.Notice](log.events); len(n) != 1 || !strings.Contains(n[0].Text, "does not support tools") {
			t.Errorf("notices = %+v", n)
		}
	})
	t.Run("not after text arrived", func(t *testing.T) {
		h, s := newScripted(t, 0,
			step{pieces: []string{"Half an answer"}, err: refusal(400, "", "tools are not supported")})
		log := h.turn(h.newChat(), "hello")
		if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeToolsUnsupported}) {
			t.Errorf("TurnDone.Err = %v, want tools_unsupported", log.done.Err)
		}
		if n := len(s.requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

func TestLoopContextTooLong(t *testing.T) {
	t.Parallel()
	tooLong := refusal(400, "context_length_exceeded invalid_request_error", "maximum context length is 8192 tokens")
	search := llm.ToolCall{ID: "s1", Name: "memory_search", Args: `{"query":"pears"}`}
	t.Run("compacted, asked again, and the retry is no step", func(t *testing.T) {
		// Two steps: had the retry counted, the retried call would be the
		// last step and be offered no tools.
		h, s := newScripted(t, 2,
			step{pieces: []string{"About apples."}},
			step{err: tooLong},
			step{pieces: []string{"We talked about apples."}},
			step{calls: []llm.ToolCall{search}},
			step{pieces: []string{"Pears, then."}})
		id := h.newChat()
		if log := h.turn(id, "first, apples"); log.done.Err != nil {
			t.Fatal(log.done.Err)
		}
		log := h.turn(id, "second, pears")
		if log.done.Err != nil || log.text() != "Pears, then." {
			t.Fatalf("turn: %v %q", log.done.Err, log.text())
		}
		reqs := s.requests()[1:]
		if got := offered(reqs); len(got) != 4 || got[0] == 0 || got[1] != 0 || got[2] == 0 || got[3] != 0 {
			t.Fatalf("tools offered per request = %v, want the call, the summary without, "+
				"the retry with, the last step without", got)
		}
		if !strings.Contains(reqs[1].Messages[0].Content, "Summarise") {
			t.Errorf("second request is no compaction: %+v", reqs[1].Messages)
		}
		if !strings.Contains(reqs[2].Messages[0].Content, "We talked about apples.") {
			t.Errorf("the retry lacks the summary: %q", reqs[2].Messages[0].Content)
		}
		if n := len(of[agent.ToolCall](log.events)); n != 1 {
			t.Errorf("%d tools run, want 1", n)
		}
	})
	t.Run("once a turn", func(t *testing.T) {
		h, s := newScripted(t, 0,
			step{pieces: []string{"About apples."}},
			step{err: tooLong},
			step{pieces: []string{"Summary."}},
			step{err: tooLong})
		id := h.newChat()
		h.turn(id, "first, apples")
		log := h.turn(id, "second, pears")
		if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeContextTooLong}) {
			t.Errorf("TurnDone.Err = %v, want context_too_long", log.done.Err)
		}
		if n := len(s.requests()); n != 4 {
			t.Errorf("%d requests, want 4", n)
		}
	})
}

func TestLoopRetries(t *testing.T) {
	t.Parallel()
	t.Run("429 and 5xx before text", func(t *testing.T) {
		h, s := newScripted(t, 0,
			step{err: refusal(429, "", "Rate limit reached")},
			step{err: refusal(503, "", "overloaded")},
			step{pieces: []string{"Finally."}})
		log := h.turn(h.newChat(), "hello")
		if log.done.Err != nil || log.text() != "Finally." {
			t.Fatalf("turn: %v %q", log.done.Err, log.text())
		}
		notices := of[agent.Notice](log.events)
		if len(notices) != 2 || !strings.Contains(notices[0].Text, "429") ||
			!strings.Contains(notices[1].Text, "server error") {
			t.Errorf("notices = %+v", notices)
		}
		if got := offered(s.requests()); len(got) != 3 || got[2] == 0 {
			t.Errorf("tools offered per request = %v, want 3 requests, all with tools", got)
		}
	})
	t.Run("not after text arrived", func(t *testing.T) {
		h, s := newScripted(t, 0, step{pieces: []string{"Half"}, err: refusal(503, "", "overloaded")})
		id := h.newChat()
		log := h.turn(id, "hello")
		if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeServer}) {
			t.Errorf("TurnDone.Err = %v, want server", log.done.Err)
		}
		if n := len(s.requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
		c, _ := h.a.Chat(id)
		if last := c.Messages[len(c.Messages)-1]; last.Text != "Half" || last.Err == "" {
			t.Errorf("the partial answer was saved as %+v", last)
		}
	})
	t.Run("given up after three", func(t *testing.T) {
		h, s := newScripted(t, 0, step{err: refusal(429, "", "")}, step{err: refusal(429, "", "")},
			step{err: refusal(429, "", "")}, step{err: refusal(429, "", "")})
		log := h.turn(h.newChat(), "hello")
		if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeRateLimited}) {
			t.Errorf("TurnDone.Err = %v, want rate_limited", log.done.Err)
		}
		if n := len(s.requests()); n != 4 {
			t.Errorf("%d requests, want 4", n)
		}
	})
}

func TestLoopLastStepOffersNoTools(t *testing.T) {
	t.Parallel()
	search := llm.ToolCall{ID: "s", Name: "memory_search", Args: `{"query":"x"}`}
	h, s := newScripted(t, 3, step{calls: []llm.ToolCall{search}}, step{calls: []llm.ToolCall{search}},
		step{calls: []llm.ToolCall{search}})
	log := h.turn(h.newChat(), "search forever")
	if got := offered(s.requests()); len(got) != 3 || got[0] == 0 || got[1] == 0 || got[2] != 0 {
		t.Errorf("tools offered per request = %v, want the last without", got)
	}
	if n := len(of[agent.ToolResult](log.events)); n != 2 {
		t.Errorf("%d tools run, want 2", n)
	}
	if !errors.Is(log.done.Err, &agent.Error{Code: agent.CodeBadResponse}) {
		t.Errorf("TurnDone.Err = %v, want bad_response", log.done.Err)
	}
}
