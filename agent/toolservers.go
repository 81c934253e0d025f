package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"engram/agent/llm"
	"engram/agent/mcptools"
	"engram/agent/memtools"
)

// ToolApproval asks the person whether a tool of an MCP server may run with
// these arguments: the turn waits for Approve (or its cancel). It comes
// between the call's ToolCall and its ToolResult.
type ToolApproval struct {
	ChatID, CallID string
	Server, Tool   string // the server's name in mcp.json and its own name of the tool
	Args           string // the arguments, as the model gave them (JSON)
}

// Chat is the chat of the turn that asks.
func (e ToolApproval) Chat() string { return e.ChatID }

// Decision is the person's answer to a ToolApproval.
type Decision int

// The answers.
const (
	Deny        Decision = iota // the model is told the person declined
	AllowOnce                   // this call runs
	AllowAlways                 // this call and every later one of the server run without asking (mcp.json keeps it)
)

// ToolServerStatus is what Settings shows of an MCP server.
type ToolServerStatus = mcptools.Status

// errNoApproval is Approve's error for a call that waits for nothing.
var errNoApproval = errors.New("no tool call waits for that answer")

// approvals are the calls waiting for the person's answer, by chat and
// call ID.
type approvals struct {
	mu      sync.Mutex
	pending map[[2]string]chan Decision
}

func (p *approvals) wait(chatID, callID string) (chan Decision, func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[[2]string]chan Decision{}
	}
	key := [2]string{chatID, callID}
	ch := make(chan Decision, 1)
	p.pending[key] = ch
	return ch, func() {
		p.mu.Lock()
		delete(p.pending, key)
		p.mu.Unlock()
	}
}

func (p *approvals) answer(chatID, callID string, d Decision) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ok := p.pending[[2]string{chatID, callID}]
	if ok {
		select {
		case ch <- d:
		default: // answered already
		}
	}
	return ok
}

// startToolServers starts the MCP servers of mcp.json in the background and
// follows the file: servers come and go as it changes. A file that does not
// parse keeps the servers that run, with a Notice.
func (a *Agent) startToolServers() {
	a.toolServers = mcptools.NewManager(mcptools.Options{Version: a.opts.Version})
	a.applyToolConfig()
	a.follow(a.opts.Paths.MCPConfig(), a.applyToolConfig)
}

func (a *Agent) applyToolConfig() {
	servers, err := mcptools.ReadConfig(a.opts.Paths.MCPConfig())
	if err != nil {
		a.notice("", KeyToolServersUnchanged, "Err", err)
		return
	}
	a.toolServers.Apply(servers)
}

// ToolServers are the MCP servers of mcp.json and how each is doing (none
// unless Options.ToolServers).
func (a *Agent) ToolServers() []ToolServerStatus {
	if a.toolServers == nil {
		return nil
	}
	return a.toolServers.Statuses()
}

// WaitToolServers waits until every MCP server has started or failed, or
// ctx ends: for a one-shot turn that should see the servers' tools (the
// window never waits).
func (a *Agent) WaitToolServers(ctx context.Context) {
	if a.toolServers != nil {
		a.toolServers.WaitStarted(ctx)
	}
}

// Approve answers the ToolApproval of a call.
func (a *Agent) Approve(chatID, callID string, d Decision) error {
	if !a.approvals.answer(chatID, callID, d) {
		return fmt.Errorf("approve %s: %w", callID, errNoApproval)
	}
	return nil
}

// offeredTools are the tools a turn offers: the memory tools (none in a
// temporary chat), then the running MCP servers'.
func (a *Agent) offeredTools(temporary bool) []llm.Tool {
	var tools []llm.Tool
	if !temporary {
		tools = append(tools, memtools.Defs...)
	}
	if a.toolServers == nil {
		return tools
	}
	for _, t := range a.toolServers.Tools() {
		tools = append(tools, t.Def)
	}
	return tools
}

// serverTool finds the MCP server tool a call names.
func (a *Agent) serverTool(name string) (mcptools.Tool, bool) {
	if a.toolServers == nil || !mcptools.IsServerTool(name) { // a memory tool: no need to list the servers'
		return mcptools.Tool{}, false
	}
	return a.toolServers.Lookup(name)
}

// runServerTool runs a call of an MCP server's tool once the person allows
// it (unless the server is "always").
func (a *Agent) runServerTool(ctx context.Context, ts *turnState, call llm.ToolCall, t mcptools.Tool) (string, error) {
	if t.Server.NeedsApproval() {
		ch, done := a.approvals.wait(ts.chatID, call.ID)
		defer done()
		a.emit(ToolApproval{ChatID: ts.chatID, CallID: call.ID, Server: t.Server.Name, Tool: t.Name, Args: call.Args})
		var d Decision
		select {
		case d = <-ch:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		switch d {
		case Deny:
			return "", fmt.Errorf("the user declined this call of %s (MCP server %s); do not call it again "+
				"unless they ask", t.Name, t.Server.Name)
		case AllowAlways:
			a.toolServers.SetApproval(t.Server.Name, mcptools.Always)
			if err := mcptools.SetApproval(a.opts.Paths.MCPConfig(), t.Server.Name, mcptools.Always); err != nil {
				a.notice(ts.chatID, KeyAllowedThisSession, "Err", err)
			}
		}
	}
	return a.toolServers.Call(ctx, t, call.Args)
}
