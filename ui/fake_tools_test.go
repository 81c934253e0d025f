package ui

import (
	"path/filepath"
	"sync"

	"engram/agent"
	"engram/agent/mcptools"
)

// fakeTools is the fake backend's side of the MCP servers: a real mcp.json
// in its folder, every server of which is ready with the tools named in
// tools (echo when unnamed), and the answers the window gave.
type fakeTools struct {
	mu         sync.Mutex
	answers    []string // "chatID callID decision" of each Approve
	approveErr error
	tools      map[string][]string
	failed     map[string]error // servers shown as failed, with why
}

func (f *fakeBackend) mcpConfig() string { return filepath.Join(f.dir, "mcp.json") }

func (f *fakeBackend) Approve(chatID, callID string, d agent.Decision) error {
	t := &f.tools
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.approveErr != nil {
		return t.approveErr
	}
	t.answers = append(t.answers, chatID+" "+callID+" "+decisionName(d))
	return nil
}

// decisionName names d in the fake's records.
func decisionName(d agent.Decision) string {
	switch d {
	case agent.AllowOnce:
		return "once"
	case agent.AllowAlways:
		return "always"
	}
	return "deny"
}

// answers are the Approve calls so far.
func (f *fakeBackend) answers() []string {
	f.tools.mu.Lock()
	defer f.tools.mu.Unlock()
	return append([]string(nil), f.tools.answers...)
}

func (f *fakeBackend) ToolServers() []agent.ToolServerStatus {
	servers, err := mcptools.ReadConfig(f.mcpConfig())
	if err != nil {
		return nil
	}
	t := &f.tools
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []agent.ToolServerStatus
	for _, s := range servers {
		st := agent.ToolServerStatus{Server: s, State: mcptools.Ready, Tools: t.tools[s.Name]}
		switch {
		case s.Disabled:
			st.State, st.Tools = mcptools.Off, nil
		case t.failed[s.Name] != nil:
			st.State, st.Err, st.Tools = mcptools.Failed, t.failed[s.Name], nil
		case st.Tools == nil:
			st.Tools = []string{"echo"}
		}
		out = append(out, st)
	}
	return out
}

func (f *fakeBackend) AddToolServer(s agent.ToolServer) error {
	return mcptools.AddServer(f.mcpConfig(), s)
}

func (f *fakeBackend) RemoveToolServer(name string) error {
	return mcptools.RemoveServer(f.mcpConfig(), name)
}

func (f *fakeBackend) SetToolServerOff(name string, off bool) error {
	return mcptools.SetDisabled(f.mcpConfig(), name, off)
}

func (f *fakeBackend) SetToolServerApproval(name string, a agent.ToolServerApproval) error {
	return mcptools.SetApproval(f.mcpConfig(), name, a)
}
