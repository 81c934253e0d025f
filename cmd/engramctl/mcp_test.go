package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/agent/agenttest"
	"engram/agent/mcpserver"
	"engram/memory"
)

// mcpHome is a temporary home for engramctl mcp processes.
type mcpHome struct {
	home string
	env  []string
}

func newMCPHome(t *testing.T) *mcpHome {
	t.Helper()
	home := t.TempDir()
	h := &mcpHome{home: home}
	h.env = []string{"ENGRAMCTL_AS_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state")}
	return h
}

func (h *mcpHome) memoryPath() string {
	return filepath.Join(h.home, "config", "engram", "memory.json")
}

// connect starts `engramctl mcp args…` as a process and connects a client
// to it over stdio.
func (h *mcpHome) connect(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"mcp"}, args...)...)
	cmd.Env = h.env
	cmd.Stderr = &strings.Builder{}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to engramctl mcp: %v (stderr: %s)", err, cmd.Stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text and whether it was an error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// An MCP client searches and keeps the app's memory with the app's rules:
// a write lands in memory.json and this device's journal, a secret is
// refused, only what the client was shown may change, and a memory the
// person wrote is not forgotten by it.
func TestMCPServesTheMemoryWithTheAppsRules(t *testing.T) {
	h := newMCPHome(t)
	st, err := memory.Open(h.memoryPath(), memory.Options{StateDir: filepath.Join(h.home, "state", "engram")})
	if err != nil {
		t.Fatal(err)
	}
	mine, _, err := st.Add(memory.Entry{Kind: memory.KindPreference, Text: "The user prefers tabs for indentation in Go code.",
		Source: memory.SourceUser, Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	cs := h.connect(t)
	want := []string{"memory_forget", "memory_list", "memory_search", "memory_update", "memory_write"}
	if got := toolNames(t, cs); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	if out, isErr := call(t, cs, "memory_write", map[string]any{"kind": "fact", "text": "The user's sister Quirinella lives in Graz."}); isErr {
		t.Fatalf("memory_write: %s", out)
	}
	if out, isErr := call(t, cs, "memory_write", map[string]any{"kind": "fact",
		"text": "The wifi password for the home router is hunter2-Kx9!"}); !isErr {
		t.Errorf("a secret was saved: %s", out)
	}
	out, _ := call(t, cs, "memory_search", map[string]any{"query": "where does my sister live"})
	if !strings.Contains(out, "Quirinella") || !strings.Contains(out, `"score":`) || !strings.Contains(out, `"matched":`) {
		t.Fatalf("memory_search: %s", out)
	}
	if out, isErr := call(t, cs, "memory_update", map[string]any{"id": "zzzzzzzzzz", "text": "x"}); !isErr {
		t.Errorf("update of an unknown memory: %s", out)
	}
	out, isErr := call(t, cs, "memory_forget", map[string]any{"id": mine.ID, "reason": "spaces now"})
	if isErr || !strings.Contains(out, "not forgotten") {
		t.Errorf("forget of the person's memory: %s (error %v)", out, isErr)
	}

	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.PinnedURI})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "tabs for indentation") {
		t.Fatalf("pinned resource: %+v, %v", res, err)
	}
	p, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: mcpserver.RecallPrompt,
		Arguments: map[string]string{"question": "Where does Quirinella live?"}})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("recall prompt: %+v, %v", p, err)
	}
	if text := p.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "<memory") ||
		!strings.Contains(text, "Graz") || !strings.HasSuffix(text, "Where does Quirinella live?") {
		t.Errorf("recall prompt text:\n%s", text)
	}

	st, err = memory.Open(h.memoryPath(), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var texts []string
	for _, e := range st.List() {
		texts = append(texts, e.Text)
	}
	if len(texts) != 2 || !slices.Contains(texts, mine.Text) || !slices.ContainsFunc(texts, func(s string) bool {
		return strings.Contains(s, "Quirinella")
	}) {
		t.Fatalf("memory.json holds %q", texts)
	}
	journals, _ := filepath.Glob(filepath.Join(h.home, "state", "engram", "journal", "*.jsonl"))
	var journaled bool
	for _, j := range journals {
		if b, err := os.ReadFile(j); err == nil && strings.Contains(string(b), "Quirinella") {
			journaled = true
		}
	}
	if !journaled {
		t.Errorf("the client's memory is not in the device's journal (%v)", journals)
	}
}

// --read-only offers the searches only, and a write is no tool there.
func TestMCPReadOnly(t *testing.T) {
	h := newMCPHome(t)
	cs := h.connect(t, "--read-only")
	if got := toolNames(t, cs); !slices.Equal(got, []string{"memory_list", "memory_search"}) {
		t.Fatalf("read-only tools %v", got)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_write",
		Arguments: map[string]any{"kind": "fact", "text": "The user likes figs."}})
	if err == nil && !res.IsError {
		t.Fatalf("memory_write on a read-only server: %+v", res)
	}
	if _, err := os.Stat(h.memoryPath()); err == nil {
		t.Errorf("a read-only server wrote %s", h.memoryPath())
	}
}

// Two MCP servers writing one memory file at once lose nothing.
func TestMCPServersWritingTogetherLoseNothing(t *testing.T) {
	h := newMCPHome(t)
	const servers, each = 2, 12
	var wg sync.WaitGroup
	for s := range servers {
		cs := h.connect(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				text := fmt.Sprintf("Server %c noted that item %d of the list is number %d.", 'A'+s, i, i*7+s)
				if out, isErr := call(t, cs, "memory_write", map[string]any{"kind": "fact", "text": text}); isErr {
					t.Errorf("write: %s", out)
				}
			}
		}()
	}
	wg.Wait()
	st, err := memory.Open(h.memoryPath(), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := len(st.List()); n != servers*each {
		t.Fatalf("%d memories after %d writes", n, servers*each)
	}
}

// --http serves loopback only, and refuses a request whose Host is not
// the loopback one (DNS rebinding).
func TestMCPHTTPLoopbackOnly(t *testing.T) {
	h := newMCPHome(t)
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:8080", "example.com:80"} {
		cmd := exec.Command(os.Args[0], "mcp", "--http", addr)
		cmd.Env = h.env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage || !strings.Contains(string(out), "loopback") {
			t.Errorf("mcp --http %s: %v, %s", addr, err, out)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "mcp", "--http", "127.0.0.1:0")
	cmd.Env = h.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "engramctl mcp: serving ")
	if err != nil || !ok {
		t.Fatalf("first line %q, %v", line, err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	defer cs.Close()
	if out, isErr := call(t, cs, "memory_write", map[string]any{"kind": "fact", "text": "The user's bike is green."}); isErr {
		t.Fatalf("memory_write over HTTP: %s", out)
	}
	req, err := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request for Host attacker.example: %s, want 403", resp.Status)
	}
}

// writeMCPConfig lists the test MCP server (agenttest's, this test binary)
// as "files" in the chat environment's mcp.json.
func writeMCPConfig(t *testing.T, e *chatEnv) {
	t.Helper()
	cmd, args, env := agenttest.MCPServerCommand("1")
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": cmd, "args": args, "env": env}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.vars["XDG_CONFIG_HOME"], "engram")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// engramctl chat runs an MCP server's tool that asks first only with
// --approve; without it the call is declined and says how to allow it.
func TestChatRunsMCPToolsOnlyWithApprove(t *testing.T) {
	e := newChatEnv(t)
	writeMCPConfig(t, e)
	call := agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "c1", Name: "mcp__files__echo", Args: `{"text":"hello"}`}}}
	e.srv.Push(call, agenttest.Reply{Text: "Declined."})
	code, _, errOut := e.run(t, "chat", "use the server")
	if code != exitOK || !strings.Contains(errOut, "declined: echo of the MCP server files") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if got := e.srv.Requests()[1].ToolResults()["c1"]; !strings.Contains(got, "declined") {
		t.Errorf("the model was told %q", got)
	}
	e.srv.Push(call, agenttest.Reply{Text: "It said hello."})
	code, out, errOut := e.run(t, "chat", "--approve", "use the server")
	if code != exitOK || out != "It said hello.\n" || !strings.Contains(errOut, "→ echo: hello") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}
