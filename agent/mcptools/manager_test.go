package mcptools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"engram/agent/agenttest"
	"engram/agent/mcptools"
)

func TestMain(m *testing.M) { os.Exit(agenttest.RunInTempHome(m)) }

// self is a server entry that runs this test binary as the test MCP
// server of agenttest.
func self(name, mode string) mcptools.Server {
	cmd, args, env := agenttest.MCPServerCommand(mode)
	return mcptools.Server{Name: name, Command: cmd, Args: args, Env: env}
}

// ready waits until the named server is ready or failed.
func ready(t *testing.T, m *mcptools.Manager, name string) mcptools.Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, st := range m.Statuses() {
			if st.Server.Name == name && st.State != mcptools.Starting {
				return st
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("server %s still starting", name)
	return mcptools.Status{}
}

func lookup(t *testing.T, m *mcptools.Manager, name string) mcptools.Tool {
	t.Helper()
	tool, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s among %v", name, m.Tools())
	}
	return tool
}

// A server's tools are offered under names of their own and called; a
// long result is cut, a tool's error, a timeout and a server that dies
// mid-call are errors, and the dead server's status says so.
func TestManagerRunsServerTools(t *testing.T) {
	m := mcptools.NewManager(mcptools.Options{CallTimeout: 300 * time.Millisecond, MaxResult: 1000})
	defer m.Close()
	m.Apply([]mcptools.Server{self("files", "1")})
	if st := ready(t, m, "files"); st.State != mcptools.Ready || len(st.Tools) != 5 {
		t.Fatalf("status %+v", st)
	}
	ctx := context.Background()
	out, err := m.Call(ctx, lookup(t, m, "mcp__files__echo"), `{"text":"hi"}`)
	if err != nil || out != "echo: hi" {
		t.Fatalf("echo: %q, %v", out, err)
	}
	out, err = m.Call(ctx, lookup(t, m, "mcp__files__big"), ``)
	if err != nil || len(out) > 1100 || !strings.Contains(out, "more bytes cut") || !strings.HasPrefix(out, "界") {
		t.Fatalf("big: %d bytes, %v", len(out), err)
	}
	if _, err := m.Call(ctx, lookup(t, m, "mcp__files__fail"), `{}`); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("fail: %v", err)
	}
	if _, err := m.Call(ctx, lookup(t, m, "mcp__files__slow"), `{}`); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("slow: %v", err)
	}
	if _, err := m.Call(ctx, lookup(t, m, "mcp__files__echo"), `{"text":`); err == nil {
		t.Fatal("arguments that are not JSON were sent")
	}
	if _, err := m.Call(ctx, lookup(t, m, "mcp__files__crash"), `{}`); err == nil {
		t.Fatal("a server that died mid-call gave no error")
	}
	deadline := time.Now().Add(10 * time.Second)
	for m.Statuses()[0].State == mcptools.Ready && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st := m.Statuses()[0]; st.State != mcptools.Failed || st.Err == nil {
		t.Fatalf("after the crash: %+v", st)
	}
	if len(m.Tools()) != 0 {
		t.Errorf("a dead server's tools are still offered: %v", m.Tools())
	}
}

// Apply never waits for a server: a slow one is starting, a broken one
// failed with its error, a disabled one is off, and the others' tools are
// offered meanwhile; two servers whose names clean to one keep apart.
func TestManagerStartsInTheBackground(t *testing.T) {
	m := mcptools.NewManager(mcptools.Options{})
	defer m.Close()
	start := time.Now()
	broken := mcptools.Server{Name: "broken", Command: filepath.Join(t.TempDir(), "no-such-server")}
	off := self("off", "1")
	off.Disabled = true
	m.Apply([]mcptools.Server{self("sleepy", "sleepy"), broken, off, self("a.b", "1"), self("a_b", "1")})
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Apply took %s", took)
	}
	if st := ready(t, m, "broken"); st.State != mcptools.Failed || st.Err == nil {
		t.Errorf("broken: %+v", st)
	}
	ready(t, m, "a.b")
	ready(t, m, "a_b")
	for _, st := range m.Statuses() {
		switch st.Server.Name {
		case "sleepy":
			if st.State != mcptools.Starting {
				t.Errorf("sleepy: %+v", st)
			}
		case "off":
			if st.State != mcptools.Off {
				t.Errorf("off: %+v", st)
			}
		}
	}
	names := map[string]bool{}
	for _, tool := range m.Tools() {
		if names[tool.Def.Name] {
			t.Errorf("two tools named %s", tool.Def.Name)
		}
		names[tool.Def.Name] = true
	}
	if !names["mcp__a_b__echo"] || !names["mcp__a_b__echo_2"] || len(names) != 10 {
		t.Errorf("tool names %v", names)
	}
	m.Apply(nil)
	if len(m.Statuses()) != 0 || len(m.Tools()) != 0 {
		t.Errorf("after Apply(nil): %v, %v", m.Statuses(), m.Tools())
	}
}
