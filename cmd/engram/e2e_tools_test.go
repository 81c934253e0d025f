//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

const (
	toolQuestion = "Ask the files server to say hello"
	toolCallName = "mcp__files__echo"
)

// TestE2ETools runs a tool of an MCP server of mcp.json (this test binary,
// as agenttest serves) from the window: the call waits for the approval
// prompt, Allow once runs it, and the call and its result are in the
// answer's disclosure. Screenshots: tool-approval, tool-disclosure.
func TestE2ETools(t *testing.T) {
	e := newE2E(t)
	e.srv.Respond = func(r agenttest.Request) agenttest.Reply {
		switch {
		case isDistill(r):
			return agenttest.Reply{Text: "[]"}
		case r.LastUser() != toolQuestion:
			return agenttest.Reply{Text: "unexpected request asking " + r.LastUser()}
		case !slices.Contains(r.Tools, toolCallName):
			return agenttest.Reply{Text: "the MCP server's tools were not offered"}
		case len(r.ToolResults()) == 0:
			return agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "call_1", Name: toolCallName,
				Args: `{"text":"hello from the server, 你好"}`}}}
		}
		return agenttest.Reply{Text: "The server said: " + r.ToolResults()["call_1"]}
	}
	s := e.session(setup{Config: e.config()})
	cmd, args, env := agenttest.MCPServerCommand("1")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": cmd, "args": args, "env": env}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.paths().MCPConfig(), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	s.start()
	s.settle()
	time.Sleep(2 * time.Second) // the server starts in the background

	s.send(toolQuestion)
	e.request(10*time.Second, toolQuestion)
	time.Sleep(time.Second) // the prompt is drawn
	s.shot("tool-approval")
	if n := len(e.srv.Requests()); n != 1 {
		t.Fatalf("%d requests before the call was allowed, want 1", n)
	}
	// Shift+Tab from the message box reaches the answer's disclosure, then
	// Deny, Always for this server and Allow once.
	s.xdo("key", "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab", "space")
	a := s.waitAnswer(20*time.Second, toolQuestion)
	if !strings.Contains(a.Text, "echo: hello from the server, 你好") || len(a.Tools) != 1 ||
		a.Tools[0].Name != toolCallName || a.Tools[0].Failed {
		t.Fatalf("answer %q, tools %+v", a.Text, a.Tools)
	}
	if b, _ := os.ReadFile(s.paths().MCPConfig()); strings.Contains(string(b), string(agent.ApprovalAlways)) {
		t.Errorf("Allow once was taken for Always:\n%s", b)
	}
	time.Sleep(700 * time.Millisecond)
	s.focusMessageBox()
	s.xdo("key", "shift+Tab", "space", "Tab")
	time.Sleep(500 * time.Millisecond)
	s.shot("tool-disclosure")
}
