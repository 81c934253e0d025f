package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// guard bounds how long a test waits for an event before it fails; it is a
// hang guard, not a timing assertion.
const guard = 20 * time.Second

// stress skips a long stress test under -short (make test); it runs in
// full without it.
func stress(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("stress test: runs without -short")
	}
}

// harness is an agent wired to a fake endpoint in a temporary home.
type harness struct {
	t     *testing.T
	srv   *agenttest.Server
	a     *agent.Agent
	paths agent.Paths
}

// newHarness starts a fake endpoint and an agent on it with distillation
// off (tests that want it turn it on in cfg).
func newHarness(t *testing.T, cfg func(*agent.Config), opts func(*agent.Options)) *harness {
	t.Helper()
	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	paths := agent.DefaultPaths(dir+"/config", dir+"/data", dir+"/state")
	c := agent.DefaultConfig()
	c.BaseURL, c.APIKey, c.Model = srv.BaseURL(), "sk-test-key-1234", "fake-model"
	c.Distill = false
	if cfg != nil {
		cfg(&c)
	}
	o := agent.Options{Config: c, Paths: paths, HTTPClient: srv.Client(), RetryDelay: time.Millisecond}
	if opts != nil {
		opts(&o)
	}
	a, err := agent.New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return &harness{t: t, srv: srv, a: a, paths: paths}
}

// newChat creates a chat.
func (h *harness) newChat() string {
	h.t.Helper()
	c, err := h.a.NewChat()
	if err != nil {
		h.t.Fatalf("NewChat: %v", err)
	}
	return c.ID
}

// turn sends text and collects the chat's events up to its TurnDone.
func (h *harness) turn(chatID, text string) turnLog {
	h.t.Helper()
	if err := h.a.Send(context.Background(), chatID, text); err != nil {
		h.t.Fatalf("Send: %v", err)
	}
	return h.until(chatID)
}

// until collects the events up to the chat's TurnDone.
func (h *harness) until(chatID string) turnLog {
	h.t.Helper()
	var log turnLog
	timeout := time.After(guard)
	for {
		select {
		case e, ok := <-h.a.Events():
			if !ok {
				h.t.Fatal("event channel closed")
			}
			log.events = append(log.events, e)
			if d, ok := e.(agent.TurnDone); ok && d.ChatID == chatID {
				log.done = d
				return log
			}
		case <-timeout:
			h.t.Fatalf("no TurnDone after %s; events so far: %#v", guard, log.events)
		}
	}
}

// next waits for the next event that matches.
func (h *harness) next(match func(agent.Event) bool) agent.Event {
	h.t.Helper()
	timeout := time.After(guard)
	for {
		select {
		case e, ok := <-h.a.Events():
			if !ok {
				h.t.Fatal("event channel closed")
			}
			if match(e) {
				return e
			}
		case <-timeout:
			h.t.Fatalf("no matching event after %s", guard)
		}
	}
}

// drain returns the events that are already queued, after Wait.
func (h *harness) drain() []agent.Event {
	var out []agent.Event
	for {
		select {
		case e := <-h.a.Events():
			out = append(out, e)
		case <-time.After(50 * time.Millisecond):
			return out
		}
	}
}

// store returns a memory store of the agent.
func (h *harness) store(scope agent.Scope, dir string) *memory.Store {
	h.t.Helper()
	st, err := h.a.Memory(scope, dir)
	if err != nil {
		h.t.Fatalf("Memory(%s): %v", scope, err)
	}
	return st
}

// turnLog is the events of one turn.
type turnLog struct {
	events []agent.Event
	done   agent.TurnDone
}

// text is the streamed answer.
func (l turnLog) text() string {
	var b strings.Builder
	for _, e := range l.events {
		if d, ok := e.(agent.Delta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// reasoning is the streamed reasoning.
func (l turnLog) reasoning() string {
	var b strings.Builder
	for _, e := range l.events {
		if d, ok := e.(agent.ReasoningDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// kinds names the turn's events in order, deltas merged (store and
// instruction events left out).
func (l turnLog) kinds() []string {
	var out []string
	for _, e := range l.events {
		name := typeName(e)
		if name == "MemoryChanged" || name == "InstructionsChanged" {
			continue
		}
		if (name == "Delta" || name == "ReasoningDelta") && len(out) > 0 && out[len(out)-1] == name {
			continue
		}
		out = append(out, name)
	}
	return out
}

func typeName(e agent.Event) string {
	switch e.(type) {
	case agent.TurnStarted:
		return "TurnStarted"
	case agent.RecallDone:
		return "RecallDone"
	case agent.Delta:
		return "Delta"
	case agent.ReasoningDelta:
		return "ReasoningDelta"
	case agent.ThinkingStarted:
		return "ThinkingStarted"
	case agent.ThinkingDone:
		return "ThinkingDone"
	case agent.ToolCall:
		return "ToolCall"
	case agent.ToolResult:
		return "ToolResult"
	case agent.Notice:
		return "Notice"
	case agent.TurnDone:
		return "TurnDone"
	case agent.MemoriesSaved:
		return "MemoriesSaved"
	case agent.MemoryChanged:
		return "MemoryChanged"
	case agent.InstructionsChanged:
		return "InstructionsChanged"
	}
	return "?"
}

// of returns the events of type T.
func of[T agent.Event](events []agent.Event) []T {
	var out []T
	for _, e := range events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}
