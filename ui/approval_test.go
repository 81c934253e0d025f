package ui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/agent/agenttest"
)

// askScript is a turn that calls echo of the server files and waits for
// the person's answer (the fake plays nothing after it).
func askScript(id, text string) []agent.Event {
	return []agent.Event{
		agent.TurnStarted{ChatID: id, Text: text},
		agent.ToolCall{ChatID: id, CallID: "c1", Name: "mcp__files__echo", Args: `{"text":"hi","n":1}`},
		agent.ToolApproval{ChatID: id, CallID: "c1", Server: "files", Tool: "echo", Args: `{"text":"hi","n":1}`},
	}
}

// askShown sends a message and waits for the prompt of askScript.
func askShown(t *testing.T, h *harness) *messageView {
	t.Helper()
	test.Type(h.u.pane.input, "say hi through the server")
	pressReturn(h.u.pane.input, false)
	h.waitFor("the prompt", func() bool {
		a := h.u.currentSession().lastAnswer()
		return a != nil && len(a.asks) == 1
	})
	return h.u.pane.views[len(h.u.pane.views)-1]
}

// The prompt shows the tool, the server and the arguments inside the
// answer; an answer goes to the agent and leaves a line in its place.
func TestToolApprovalPrompt(t *testing.T) {
	for _, c := range []struct {
		button, answer, outcome string
	}{
		{"Allow once", "once", "Allowed once: echo of files."},
		{"Always for this server", "always", "Allowed: echo, and from now on every tool of files."},
		{"Deny", "deny", "Denied: echo of files."},
	} {
		t.Run(c.answer, func(t *testing.T) {
			h := newHarness(t, func(fb *fakeBackend) { fb.script = askScript })
			view := askShown(t, h)
			shown := shownText(view.root)
			for _, s := range []string{"Run echo of the MCP server files?", "{\n  \"text\": \"hi\",\n  \"n\": 1\n}"} {
				if !strings.Contains(shown, s) {
					t.Errorf("the prompt does not show %q:\n%s", s, shown)
				}
			}
			if !h.u.pane.input.Visible() || h.u.pane.input.Disabled() {
				t.Error("the prompt blocks the message box")
			}
			if c.answer == "once" {
				test.AssertRendersToMarkup(t, "tool_approval.xml", h.w.Canvas())
			}
			test.Tap(button(t, view.root, c.button))
			h.settle()
			if got := h.fb.answers(); !slices.Equal(got, []string{"chat1 c1 " + c.answer}) {
				t.Errorf("answers %v", got)
			}
			shown = shownText(view.root)
			if !strings.Contains(shown, c.outcome) || strings.Contains(shown, "Run echo") {
				t.Errorf("after %s the answer shows:\n%s", c.button, shown)
			}
			for _, b := range objects[*widget.Button](view.root) {
				if b.Text == "Allow once" || b.Text == "Deny" {
					t.Errorf("the button %q is still there", b.Text)
				}
			}
		})
	}
}

// Stopping the turn while the prompt is open takes the prompt away and
// answers nothing.
func TestToolApprovalCancelled(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.script = askScript })
	view := askShown(t, h)
	h.u.stop()
	h.waitFor("the turn's end", func() bool { return !h.u.currentSession().busy })
	if a := h.u.currentSession().lastAnswer(); len(a.asks) != 0 {
		t.Errorf("%d prompts left after the turn was stopped", len(a.asks))
	}
	if shown := shownText(view.root); strings.Contains(shown, "Run echo") {
		t.Errorf("the prompt is still shown:\n%s", shown)
	}
	if got := h.fb.answers(); len(got) != 0 {
		t.Errorf("answers %v", got)
	}
}

// An answer the agent refuses says so where the prompt was.
func TestToolApprovalRefused(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = askScript
		fb.tools.approveErr = errors.New("no tool call waits for that answer")
	})
	view := askShown(t, h)
	test.Tap(button(t, view.root, "Allow once"))
	h.settle()
	if shown := shownText(view.root); !strings.Contains(shown, "Could not answer: no tool call waits for that answer") {
		t.Errorf("the answer shows:\n%s", shown)
	}
}

func TestPrettyArgs(t *testing.T) {
	long := map[string]int{}
	for i := range 40 {
		long[strings.Repeat("k", i+1)] = i
	}
	b, err := json.Marshal(long)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"a":[1,2]}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}"},
		{`not json`, "not json"},
		{``, "(no arguments)"},
		{`{}`, "(no arguments)"},
	} {
		if got := prettyArgs(c.in); got != c.want {
			t.Errorf("prettyArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	got := prettyArgs(string(b))
	if lines := strings.Split(got, "\n"); len(lines) != askArgsLines+1 || !strings.HasPrefix(lines[askArgsLines], "… (cut") {
		t.Errorf("long arguments shown as %d lines:\n%s", len(lines), got)
	}
	if got := prettyArgs(`"` + strings.Repeat("界", 3000) + `"`); len([]rune(got)) > askArgsRunes+40 || !strings.Contains(got, "… (cut") {
		t.Errorf("a long string is shown as %d runes", len([]rune(got)))
	}
}

// On the real agent, a call of the test MCP server's echo waits for the
// prompt; once allowed, the call and its result are in the answer's
// disclosure, as the memory tools' are.
func TestAgentToolApproval(t *testing.T) {
	test.NewTempApp(t)
	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	ag, _ := newTestAgent(t, srv, func(o *agent.Options) {
		o.ToolServers = true
		cmd, args, env := agenttest.MCPServerCommand("1")
		b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
			"files": map[string]any{"command": cmd, "args": args, "env": env}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(o.Paths.MCPConfig(), b, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ag.WaitToolServers(ctx)
	if st := ag.ToolServers(); len(st) != 1 || st[0].State != "ready" {
		t.Fatalf("the test MCP server did not start: %+v", st)
	}
	srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "c1", Name: "mcp__files__echo", Args: `{"text":"hi"}`}}},
		agenttest.Reply{Text: "The server said hi."})
	h := startHarness(t, AgentBackend{ag})
	view := askShown(t, h)
	if len(srv.Requests()) != 1 {
		t.Fatalf("the call ran before it was allowed: %d requests", len(srv.Requests()))
	}
	test.Tap(button(t, view.root, "Allow once"))
	a := h.turnEnded()
	if a.Text != "The server said hi." || len(a.Tools) != 1 || a.Tools[0].Result != "echo: hi" {
		t.Fatalf("answer %q, tools %+v", a.Text, a.Tools)
	}
	view = h.u.pane.views[len(h.u.pane.views)-1]
	test.Tap(button(t, view.root, "No memories recalled · 1 tool call"))
	shown := shownText(view.root)
	for _, s := range []string{"Allowed once: echo of files.", "mcp__files__echo", `{"text":"hi"}`, "→ echo: hi"} {
		if !strings.Contains(shown, s) {
			t.Errorf("the answer does not show %q:\n%s", s, shown)
		}
	}
}
