package agent_test

import (
	"slices"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

// waitServers waits until the agent's MCP servers are as ok wants them.
func (h *harness) waitServers(what string, ok func([]agent.ToolServerStatus) bool) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := h.a.ToolServers()
		if ok(st) {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: the servers are %+v", what, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Settings' edits of mcp.json reach the running servers: one added
// starts, one switched off stops, a new approval applies, one removed is
// gone.
func TestToolServerEdits(t *testing.T) {
	h := newHarness(t, nil, func(o *agent.Options) { o.ToolServers = true })
	cmd, args, env := agenttest.MCPServerCommand("1")
	if err := h.a.AddToolServer(agent.ToolServer{Name: "files", Command: cmd, Args: args, Env: env}); err != nil {
		t.Fatal(err)
	}
	h.waitServers("added", func(st []agent.ToolServerStatus) bool {
		return len(st) == 1 && st[0].State == "ready" && slices.Contains(st[0].Tools, "echo") && st[0].Server.NeedsApproval()
	})
	if err := h.a.SetToolServerApproval("files", agent.ApprovalAlways); err != nil {
		t.Fatal(err)
	}
	h.waitServers("always", func(st []agent.ToolServerStatus) bool {
		return len(st) == 1 && st[0].State == "ready" && !st[0].Server.NeedsApproval()
	})
	if err := h.a.SetToolServerOff("files", true); err != nil {
		t.Fatal(err)
	}
	h.waitServers("switched off", func(st []agent.ToolServerStatus) bool { return len(st) == 1 && st[0].State == "off" })
	if err := h.a.SetToolServerOff("files", false); err != nil {
		t.Fatal(err)
	}
	h.waitServers("switched on", func(st []agent.ToolServerStatus) bool { return len(st) == 1 && st[0].State == "ready" })
	if err := h.a.RemoveToolServer("files"); err != nil {
		t.Fatal(err)
	}
	h.waitServers("removed", func(st []agent.ToolServerStatus) bool { return len(st) == 0 })
	if err := h.a.RemoveToolServer("files"); err == nil {
		t.Error("removed a server mcp.json no longer lists")
	}
}
