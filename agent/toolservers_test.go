package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

// toolHarness is a harness whose agent runs the test MCP server "files"
// (agenttest's) from mcp.json, with the given approval.
func toolHarness(t *testing.T, approval string) *harness {
	t.Helper()
	h := newHarness(t, nil, func(o *agent.Options) {
		o.ToolServers = true
		cmd, args, env := agenttest.MCPServerCommand("1")
		server := map[string]any{"command": cmd, "args": args, "env": env}
		if approval != "" {
			server["approval"] = approval
		}
		b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"files": server}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(o.Paths.ConfigDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(o.Paths.MCPConfig(), b, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := h.a.ToolServers()
		if len(st) == 1 && st[0].State == "ready" {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("the MCP server did not start: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// echoCall is a model reply calling the test server's echo.
func echoCall(id, text string) agenttest.Reply {
	return agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: id, Name: "mcp__files__echo", Args: `{"text":"` + text + `"}`}}}
}

// approve answers the next ToolApproval with d and returns it.
func (h *harness) approve(chatID string, d agent.Decision) agent.ToolApproval {
	h.t.Helper()
	e := h.next(func(e agent.Event) bool { _, ok := e.(agent.ToolApproval); return ok }).(agent.ToolApproval)
	if err := h.a.Approve(chatID, e.CallID, d); err != nil {
		h.t.Fatal(err)
	}
	return e
}

// A chat uses an MCP server's tool, offered beside the memory tools, once
// the person allows the call; the call and its result are in the turn.
func TestMCPToolRunsWhenAllowed(t *testing.T) {
	h := toolHarness(t, "")
	h.srv.Push(echoCall("c1", "hi"), agenttest.Reply{Text: "The server said hi."})
	id := h.newChat()
	if err := h.a.Send(context.Background(), id, "ask the server to say hi"); err != nil {
		t.Fatal(err)
	}
	ask := h.approve(id, agent.AllowOnce)
	if ask.Server != "files" || ask.Tool != "echo" || ask.Args != `{"text":"hi"}` {
		t.Errorf("approval asked %+v", ask)
	}
	if log := h.until(id); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	reqs := h.srv.Requests()
	if offered := strings.Join(reqs[0].Tools, " "); !strings.Contains(offered, "mcp__files__echo") ||
		!strings.Contains(offered, "memory_search") {
		t.Errorf("tools offered: %v", offered)
	}
	if got := reqs[1].ToolResults()["c1"]; got != "echo: hi" {
		t.Errorf("tool result = %q", got)
	}
}

// A denied call tells the model the person declined it, and does not run.
func TestMCPToolDenied(t *testing.T) {
	h := toolHarness(t, "")
	h.srv.Push(echoCall("c1", "hi"), agenttest.Reply{Text: "Fine, I will not."})
	id := h.newChat()
	if err := h.a.Send(context.Background(), id, "ask the server"); err != nil {
		t.Fatal(err)
	}
	h.approve(id, agent.Deny)
	if log := h.until(id); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	if got := h.srv.Requests()[1].ToolResults()["c1"]; !strings.Contains(got, "declined") || strings.Contains(got, "echo: hi") {
		t.Errorf("tool result = %q", got)
	}
	if err := h.a.Approve(id, "c1", agent.AllowOnce); err == nil {
		t.Error("an answer to a call that waits for nothing was taken")
	}
}

// "Always for this server" runs the call, writes the approval into
// mcp.json, and the next call runs without asking.
func TestMCPToolAlwaysAllowed(t *testing.T) {
	h := toolHarness(t, "")
	h.srv.Push(echoCall("c1", "one"), agenttest.Reply{Text: "One."}, echoCall("c2", "two"), agenttest.Reply{Text: "Two."})
	id := h.newChat()
	if err := h.a.Send(context.Background(), id, "first"); err != nil {
		t.Fatal(err)
	}
	h.approve(id, agent.AllowAlways)
	if log := h.until(id); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	if b, _ := os.ReadFile(h.paths.MCPConfig()); !strings.Contains(string(b), `"approval": "always"`) {
		t.Errorf("mcp.json after Always:\n%s", b)
	}
	log := h.turn(id, "second")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	for _, e := range log.events {
		if _, ok := e.(agent.ToolApproval); ok {
			t.Error("asked again after Always")
		}
	}
	if got := h.srv.Requests()[3].ToolResults()["c2"]; got != "echo: two" {
		t.Errorf("second result = %q", got)
	}
}

// A server that crashes mid-call ends that call with an error, not the
// chat; a server marked "always" is not asked about.
func TestMCPToolServerCrashMidCall(t *testing.T) {
	h := toolHarness(t, "always")
	h.srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "c1", Name: "mcp__files__crash", Args: `{}`}}},
		agenttest.Reply{Text: "The tool broke."})
	id := h.newChat()
	log := h.turn(id, "crash it")
	if log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	if got := h.srv.Requests()[1].ToolResults()["c1"]; !strings.HasPrefix(got, "Error:") {
		t.Errorf("result of a crashed call = %q", got)
	}
	if log.text() != "The tool broke." {
		t.Errorf("answer %q", log.text())
	}
}
