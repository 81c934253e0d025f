package agent

import "engram/agent/mcptools"

// ToolServer is an MCP server as mcp.json lists it.
type ToolServer = mcptools.Server

// ToolServerApproval says whether a ToolServer's calls are asked about.
type ToolServerApproval = mcptools.Approval

// The approvals of a ToolServer: every call asked about, or none.
const (
	ApprovalAsk    = mcptools.Ask
	ApprovalAlways = mcptools.Always
)

// The edits of mcp.json that Settings makes. Each rewrites the file at
// once and durably, keeping the keys Engram does not know; the running
// servers follow the file as they do any edit of it (with
// Options.ToolServers).

// AddToolServer lists a new MCP server in mcp.json.
func (a *Agent) AddToolServer(s ToolServer) error {
	return mcptools.AddServer(a.opts.Paths.MCPConfig(), s)
}

// RemoveToolServer takes an MCP server out of mcp.json.
func (a *Agent) RemoveToolServer(name string) error {
	return mcptools.RemoveServer(a.opts.Paths.MCPConfig(), name)
}

// SetToolServerOff switches an MCP server off ("disabled") or back on.
func (a *Agent) SetToolServerOff(name string, off bool) error {
	return mcptools.SetDisabled(a.opts.Paths.MCPConfig(), name, off)
}

// SetToolServerApproval sets whether an MCP server's calls are asked about
// (ApprovalAsk) or run at once (ApprovalAlways).
func (a *Agent) SetToolServerApproval(name string, ap ToolServerApproval) error {
	return mcptools.SetApproval(a.opts.Paths.MCPConfig(), name, ap)
}
