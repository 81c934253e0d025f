package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/agent/llm"
)

// State is where a server is in its life.
type State string

// The states of a server.
const (
	Starting State = "starting"
	Ready    State = "ready"
	Failed   State = "failed"
	Off      State = "off" // disabled in mcp.json
)

// Status is what the person sees of a server.
type Status struct {
	Server Server
	State  State
	Err    error    // why it failed
	Tools  []string // its tools' names as the server gives them
}

// Tool is a tool of a server as the model is offered it.
type Tool struct {
	Server Server
	Name   string // the server's own name for it
	Def    llm.Tool
}

// Options tune a Manager; zero values mean the defaults.
type Options struct {
	StartTimeout time.Duration // to connect and list the tools (default 30 s)
	CallTimeout  time.Duration // per call (default 60 s)
	MaxResult    int           // bytes of a result kept (default 16 KiB)
	Version      string        // the client's version, as servers are told (default "dev")
}

// Manager runs the servers of mcp.json. It is safe for concurrent use.
type Manager struct {
	opts Options

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
}

// server is one running (or failed) server.
type server struct {
	cfg    Server
	state  State
	err    error
	tools  []*mcp.Tool
	cs     *mcp.ClientSession
	cancel context.CancelFunc
}

// NewManager returns a Manager with no servers.
func NewManager(opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 30 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 60 * time.Second
	}
	if opts.MaxResult <= 0 {
		opts.MaxResult = 16 << 10
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Manager{opts: opts, servers: map[string]*server{}}
}

// Apply makes the running servers those of cfg: it stops those gone,
// changed or disabled and starts the new and changed ones in the
// background. It never waits for a server.
func (m *Manager) Apply(cfg []Server) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	want := map[string]Server{}
	for _, s := range cfg {
		want[s.Name] = s
	}
	for name, srv := range m.servers {
		s, ok := want[name]
		switch {
		case !ok || !sameLaunch(s, srv.cfg):
			srv.stop()
			delete(m.servers, name)
		default:
			srv.cfg.Approval = s.Approval // no restart for a new approval
		}
	}
	for name, s := range want {
		if _, ok := m.servers[name]; ok {
			continue
		}
		srv := &server{cfg: s, state: Starting}
		m.servers[name] = srv
		if s.Disabled {
			srv.state = Off
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		srv.cancel = cancel
		go m.start(ctx, srv)
	}
}

// sameLaunch reports whether two entries start the same server.
func sameLaunch(a, b Server) bool {
	a.Approval, b.Approval = "", ""
	return reflect.DeepEqual(a, b)
}

// SetApproval changes a running server's approval (mcp.json is the
// caller's to write).
func (m *Manager) SetApproval(name string, a Approval) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if srv := m.servers[name]; srv != nil {
		srv.cfg.Approval = a
	}
}

// start connects to a server and lists its tools, then follows the
// session until it ends.
func (m *Manager) start(ctx context.Context, srv *server) {
	c := mcp.NewClient(&mcp.Implementation{Name: "engram", Version: m.opts.Version}, nil)
	sctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	cs, err := c.Connect(sctx, transport(ctx, srv.cfg), nil)
	var tools []*mcp.Tool
	if err == nil {
		for t, terr := range cs.Tools(sctx, nil) {
			if terr != nil {
				err = terr
				break
			}
			tools = append(tools, t)
		}
		if err != nil {
			cs.Close()
		}
	}
	m.mu.Lock()
	if m.servers[srv.cfg.Name] != srv {
		m.mu.Unlock()
		if err == nil {
			cs.Close()
		}
		return
	}
	if err != nil {
		srv.state, srv.err = Failed, fmt.Errorf("start %s: %w", srv.cfg.Name, err)
		m.mu.Unlock()
		return
	}
	srv.state, srv.cs, srv.tools = Ready, cs, tools
	m.mu.Unlock()
	werr := cs.Wait()
	m.mu.Lock()
	if m.servers[srv.cfg.Name] == srv && srv.state == Ready {
		if werr == nil {
			werr = errors.New("it closed the connection")
		}
		srv.state, srv.err = Failed, fmt.Errorf("server %s stopped: %w", srv.cfg.Name, werr)
	}
	m.mu.Unlock()
}

// transport is how a server is reached: its command over stdio (with
// the environment plus its env), or its URL.
func transport(ctx context.Context, s Server) mcp.Transport {
	if s.URL != "" {
		return &mcp.StreamableClientTransport{Endpoint: s.URL, MaxRetries: -1}
	}
	cmd := exec.CommandContext(ctx, s.Command, s.Args...)
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
}

func (srv *server) stop() {
	if srv.cancel != nil {
		srv.cancel()
	}
	if srv.cs != nil {
		srv.cs.Close()
	}
	srv.state = Off
}

// WaitStarted waits until no server is starting any more, or ctx ends.
func (m *Manager) WaitStarted(ctx context.Context) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		starting := false
		for _, st := range m.Statuses() {
			starting = starting || st.State == Starting
		}
		if !starting {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Close stops every server.
func (m *Manager) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	for name, srv := range m.servers {
		srv.stop()
		delete(m.servers, name)
	}
}

// Statuses are the servers' statuses, by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, srv := range m.servers {
		st := Status{Server: srv.cfg, State: srv.state, Err: srv.err}
		for _, t := range srv.tools {
			st.Tools = append(st.Tools, t.Name)
		}
		out = append(out, st)
	}
	sortByName(out, func(s Status) string { return s.Server.Name })
	return out
}

// Tools are the tools of the ready servers, under names the model can
// call that no two share: "mcp__<server>__<tool>".
func (m *Manager) Tools() []Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Tool
	taken := map[string]bool{}
	names := slices.Sorted(maps.Keys(m.servers)) // the same names on every call
	for _, srvName := range names {
		srv := m.servers[srvName]
		if srv.state != Ready {
			continue
		}
		for _, t := range srv.tools {
			name := uniqueName(callName(srv.cfg.Name, t.Name), taken)
			params, err := json.Marshal(t.InputSchema)
			if err != nil || string(params) == "null" {
				params = json.RawMessage(`{"type":"object"}`)
			}
			desc := fmt.Sprintf("[MCP server %s] %s", srv.cfg.Name, t.Description)
			out = append(out, Tool{Server: srv.cfg, Name: t.Name, Def: llm.Tool{Name: name, Description: desc, Parameters: params}})
		}
	}
	sortByName(out, func(t Tool) string { return t.Def.Name })
	return out
}

// Lookup finds the tool the model calls by name.
func (m *Manager) Lookup(name string) (Tool, bool) {
	for _, t := range m.Tools() {
		if t.Def.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Call runs a tool with the model's arguments (a JSON object) and returns
// its text, cut to MaxResult. A tool's own error, a server that stops
// during the call and a timeout are errors, which go back to the model.
func (m *Manager) Call(ctx context.Context, t Tool, args string) (string, error) {
	m.mu.Lock()
	srv := m.servers[t.Server.Name]
	var cs *mcp.ClientSession
	if srv != nil && srv.state == Ready {
		cs = srv.cs
	}
	m.mu.Unlock()
	if cs == nil {
		return "", fmt.Errorf("the MCP server %s is not running", t.Server.Name)
	}
	raw := json.RawMessage(strings.TrimSpace(args))
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if !json.Valid(raw) {
		return "", fmt.Errorf("the arguments of %s are not valid JSON", t.Def.Name)
	}
	cctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: t.Name, Arguments: raw})
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return "", fmt.Errorf("%s of the MCP server %s did not answer within %s", t.Name, t.Server.Name, m.opts.CallTimeout)
	case err != nil:
		return "", fmt.Errorf("%s of the MCP server %s: %w", t.Name, t.Server.Name, err)
	}
	text := m.cut(resultText(res))
	if res.IsError {
		return "", fmt.Errorf("%s of the MCP server %s failed: %s", t.Name, t.Server.Name, text)
	}
	return text, nil
}

// resultText is a result's text; other content is named, not sent.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, "[an image ("+c.MIMEType+") the tool returned]")
		case *mcp.AudioContent:
			parts = append(parts, "[audio ("+c.MIMEType+") the tool returned]")
		case *mcp.ResourceLink:
			parts = append(parts, "[resource "+c.URI+"]")
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, "[resource "+c.Resource.URI+"]")
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// cut keeps the first MaxResult bytes of s, at a rune boundary.
func (m *Manager) cut(s string) string {
	if len(s) <= m.opts.MaxResult {
		return s
	}
	n := m.opts.MaxResult
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n[… %d more bytes cut]", len(s)-n)
}

func isRuneStart(b byte) bool { return b&0xc0 != 0x80 }

// notName is what a tool name may not hold (the APIs take
// [a-zA-Z0-9_-]{1,64}).
var notName = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// callPrefix starts the name of every server tool the model calls.
const callPrefix = "mcp__"

// IsServerTool reports whether the model's tool name can be a server's
// tool (callName's shape), so that other tools skip the lookup.
func IsServerTool(name string) bool { return strings.HasPrefix(name, callPrefix) }

// callName is a server's tool under the name the model calls.
func callName(server, tool string) string {
	name := callPrefix + notName.ReplaceAllString(server, "_") + "__" + notName.ReplaceAllString(tool, "_")
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// uniqueName is name, or name with a number, not yet in taken.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		suffix := fmt.Sprintf("_%d", i)
		out = name[:min(len(name), 64-len(suffix))] + suffix
	}
	taken[out] = true
	return out
}
