package ui

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/agent/mcptools"
)

// toolsConfig is an mcp.json with a server of each kind.
const toolsConfig = `{"theme": "dark", "mcpServers": {
	"files": {"command": "npx", "args": ["-y", "fs", "/tmp"]},
	"web": {"url": "https://example.com/mcp", "approval": "always"},
	"old": {"command": "old-server", "disabled": true}
}}`

// toolsHarness is a harness whose fake lists the servers of toolsConfig,
// web failing, and the Tools panel on them.
func toolsHarness(t *testing.T) (*harness, *toolsPanel) {
	t.Helper()
	h := newHarness(t, func(fb *fakeBackend) {
		if err := os.WriteFile(fb.mcpConfig(), []byte(toolsConfig), 0o600); err != nil {
			t.Fatal(err)
		}
		fb.tools.tools = map[string][]string{"files": {"read_file", "list_directory"}}
		fb.tools.failed = map[string]error{"web": errors.New("start web: connection refused")}
	})
	p := newToolsPanel(h.u)
	w := test.NewWindow(p.root)
	t.Cleanup(w.Close)
	w.Resize(fyne.NewSize(640, 620))
	p.reload()
	h.settle()
	return h, p
}

// servers is what the fake's mcp.json lists.
func (f *fakeBackend) servers(t *testing.T) map[string]mcptools.Server {
	t.Helper()
	list, err := mcptools.ReadConfig(f.mcpConfig())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]mcptools.Server{}
	for _, s := range list {
		out[s.Name] = s
	}
	return out
}

// serverRowOf is the row of server name in the panel.
func serverRowOf(t *testing.T, p *toolsPanel, name string) fyne.CanvasObject {
	t.Helper()
	for _, row := range p.list.Objects {
		for _, l := range objects[*widget.Label](row) {
			if l.Text == name {
				return row
			}
		}
	}
	t.Fatalf("no row of %s:\n%s", name, shownText(p.list))
	return nil
}

// Each server of mcp.json is listed with its state (ready, failed with
// the error, off), how it starts, its tools and its approval.
func TestToolsPanelLists(t *testing.T) {
	_, p := toolsHarness(t)
	for name, want := range map[string][]string{
		"files": {"ready · 2 tools", "npx -y fs /tmp", "Tools: read_file, list_directory"},
		"web":   {"failed: start web: connection refused", "https://example.com/mcp"},
		"old":   {"off", "old-server"},
	} {
		shown := shownText(serverRowOf(t, p, name))
		for _, s := range want {
			if !strings.Contains(shown, s) {
				t.Errorf("the row of %s does not show %q:\n%s", name, s, shown)
			}
		}
	}
	approval := func(name string) string {
		return objects[*widget.Select](serverRowOf(t, p, name))[0].Selected
	}
	if approval("files") != "Ask each time" || approval("web") != "Always allow" {
		t.Errorf("approvals shown: files %q, web %q", approval("files"), approval("web"))
	}
	if on := objects[*widget.Check](serverRowOf(t, p, "old"))[0]; on.Checked {
		t.Error("the disabled server shows on")
	}
	test.AssertObjectRendersToMarkup(t, "settings_tools.xml", p.root)
}

// The panel's switches, approval, add and remove edit mcp.json (keeping
// its other keys), and the list follows.
func TestToolsPanelEdits(t *testing.T) {
	h, p := toolsHarness(t)
	test.Tap(objects[*widget.Check](serverRowOf(t, p, "files"))[0])
	h.settle()
	if !h.fb.servers(t)["files"].Disabled || !strings.Contains(shownText(serverRowOf(t, p, "files")), "off") {
		t.Errorf("switched off, files is %+v (%s)", h.fb.servers(t)["files"], p.status.Text())
	}
	objects[*widget.Select](serverRowOf(t, p, "files"))[0].SetSelected("Always allow")
	h.settle()
	if h.fb.servers(t)["files"].NeedsApproval() {
		t.Error("files still asks after Always allow")
	}

	test.Type(p.name, "git")
	test.Type(p.target, "uvx")
	test.Type(p.args, "mcp-server-git\n--repository\n/home/me/my repo")
	test.Tap(p.add)
	h.settle()
	got := h.fb.servers(t)["git"]
	if got.Command != "uvx" || strings.Join(got.Args, "|") != "mcp-server-git|--repository|/home/me/my repo" || !got.NeedsApproval() {
		t.Errorf("added %+v", got)
	}
	if p.name.Text != "" || p.args.Text != "" {
		t.Error("the form was not emptied after the server was added")
	}
	serverRowOf(t, p, "git")

	test.Type(p.name, "files")
	test.Type(p.target, "https://other.example/mcp")
	test.Tap(p.add)
	h.settle()
	if s := p.status.Text(); !strings.Contains(s, "Could not change mcp.json") || !strings.Contains(s, "already lists") {
		t.Errorf("a taken name says %q", s)
	}
	if h.fb.servers(t)["files"].URL != "" || p.name.Text != "files" {
		t.Error("a refused add changed the server or lost what was typed")
	}

	p.confirmRemove("old")
	test.Tap(button(t, h.w.Canvas().Overlays().Top(), "Yes"))
	h.settle()
	if _, ok := h.fb.servers(t)["old"]; ok {
		t.Error("old is still in mcp.json")
	}
	if strings.Contains(shownText(p.list), "old-server") {
		t.Error("old is still listed")
	}
	if b, _ := os.ReadFile(h.fb.mcpConfig()); !strings.Contains(string(b), `"theme": "dark"`) {
		t.Errorf("the edits lost a key of mcp.json:\n%s", b)
	}
}

// A half-typed server is refused before anything is written.
func TestToolsPanelAddNeedsNameAndCommand(t *testing.T) {
	h, p := toolsHarness(t)
	before, _ := os.ReadFile(h.fb.mcpConfig())
	test.Type(p.name, "half")
	test.Tap(p.add)
	h.settle()
	if !strings.Contains(p.status.Text(), "Give the server a name and a command or URL.") {
		t.Errorf("status %q", p.status.Text())
	}
	if after, _ := os.ReadFile(h.fb.mcpConfig()); string(after) != string(before) {
		t.Error("mcp.json changed")
	}
}

// On the real agent, a server added in the open Tools dialog starts, and
// the dialog follows it to ready with its tools.
func TestAgentToolsDialog(t *testing.T) {
	test.NewTempApp(t)
	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	ag, _ := newTestAgent(t, srv, func(o *agent.Options) { o.ToolServers = true })
	h := startHarness(t, AgentBackend{ag})
	h.u.openTools()
	h.settle()
	dlg := h.w.Canvas().Overlays().Top()
	if !strings.Contains(shownText(dlg), "No MCP servers yet") {
		t.Fatalf("the dialog shows:\n%s", shownText(dlg))
	}
	cmd, args, env := agenttest.MCPServerCommand("1")
	if err := ag.AddToolServer(agent.ToolServer{Name: "files", Command: cmd, Args: args, Env: env}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ag.WaitToolServers(ctx)
	h.waitFor("the server ready in the dialog", func() bool {
		s := shownText(dlg)
		return strings.Contains(s, "ready ·") && strings.Contains(s, "echo")
	})
}

// A server's environment is written to mcp.json; the list names its
// variables, never their values; a line that is no KEY=value is refused
// without being repeated.
func TestToolsPanelEnvironment(t *testing.T) {
	h, p := toolsHarness(t)
	test.Type(p.name, "github")
	test.Type(p.target, "github-mcp-server")
	test.Type(p.env, "GITHUB_TOKEN=ghp_0123456789abcdef\nDEBUG = 1")
	test.Tap(p.add)
	h.settle()
	got := h.fb.servers(t)["github"]
	if got.Env["GITHUB_TOKEN"] != "ghp_0123456789abcdef" || got.Env["DEBUG"] != "1" || len(got.Env) != 2 {
		t.Errorf("added %+v", got)
	}
	shown := shownText(serverRowOf(t, p, "github"))
	if !strings.Contains(shown, "Environment: DEBUG, GITHUB_TOKEN") || strings.Contains(shown, "ghp_") {
		t.Errorf("the row shows:\n%s", shown)
	}
	if p.env.Text != "" {
		t.Error("the environment was not emptied")
	}
	before, _ := os.ReadFile(h.fb.mcpConfig())
	test.Type(p.name, "other")
	test.Type(p.target, "other-server")
	test.Type(p.env, "ghp_pasted_alone")
	test.Tap(p.add)
	h.settle()
	if s := p.status.Text(); !strings.Contains(s, "KEY=value") || strings.Contains(s, "ghp_") {
		t.Errorf("a bad line says %q", s)
	}
	if after, _ := os.ReadFile(h.fb.mcpConfig()); string(after) != string(before) {
		t.Error("a refused environment changed mcp.json")
	}
}
