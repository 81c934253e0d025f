package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/cmd/internal/version"
)

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-config-dir", "/c", "-data-dir", "/d"}, nil)
	if err != nil || o.paths.ConfigDir != "/c" || o.paths.DataDir != "/d" {
		t.Fatalf("parseFlags = %+v, %v", o.paths, err)
	}
	if _, err := parseFlags([]string{"extra"}, nil); err == nil {
		t.Error("an unexpected argument was accepted")
	}
	o, err = parseFlags(nil, nil)
	if err != nil || filepath.Base(o.paths.ConfigDir) != "engram" || filepath.Base(o.paths.DataDir) != "engram" {
		t.Fatalf("default paths %+v, %v", o.paths, err)
	}
}

func TestRunVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, &out); err != nil {
		t.Fatalf("engram --version: %v", err)
	}
	if got, want := out.String(), "engram "+version.Dev+"\n"; got != want {
		t.Errorf("engram --version printed %q, want %q", got, want)
	}
}

// TestRunAppFirstStart runs the whole app on the test driver (whose Run
// returns at once) with fresh folders: the agent opens, the window starts
// with a first chat saved to disk, and a broken config file is survived.
func TestRunAppFirstStart(t *testing.T) {
	dir := t.TempDir()
	paths := agent.DefaultPaths(filepath.Join(dir, "config"), filepath.Join(dir, "data"), filepath.Join(dir, "state"))
	if err := os.MkdirAll(paths.ConfigDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.ConfigFile(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{agent.EnvModel: "from-env"}
	a := test.NewTempApp(t)
	// The test driver's Run returns at once. What is handed to the UI
	// goroutine runs one at a time, so nothing touches the widgets from two
	// goroutines; once the window closes (Close), the UI drops what is
	// handed to it.
	var mu sync.Mutex
	var queued int
	do := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		queued++
		f()
	}
	opts := options{paths: paths, getenv: func(k string) string { return env[k] }, do: do}
	// The window stays open until the first chat is on disk (or 20 s).
	chatFiles := func() []string {
		files, _ := filepath.Glob(filepath.Join(paths.ChatsDir(), "*.json"))
		return files
	}
	run := runUntil{App: a, done: func() bool { return len(chatFiles()) > 0 }}
	if err := runApp(context.Background(), run, opts); err != nil {
		t.Fatalf("runApp: %v", err)
	}
	if chats := chatFiles(); len(chats) != 1 {
		t.Fatalf("chat files %v, want the first chat", chats)
	}
	mu.Lock()
	defer mu.Unlock()
	if queued == 0 {
		t.Error("no background result was handed to the UI")
	}
}

// runUntil is an app whose Run returns once done holds (or after 20 s),
// as if the window were closed then.
type runUntil struct {
	fyne.App
	done func() bool
}

// Run waits for done.
func (r runUntil) Run() {
	for end := time.Now().Add(20 * time.Second); !r.done() && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunAppStartsToolServers checks that the app starts the MCP servers
// of mcp.json: a server that is a shell script leaving a file.
func TestRunAppStartsToolServers(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to play an MCP server")
	}
	dir := t.TempDir()
	paths := agent.DefaultPaths(filepath.Join(dir, "config"), filepath.Join(dir, "data"), filepath.Join(dir, "state"))
	marker := filepath.Join(dir, "started")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"script": map[string]any{"command": sh, "args": []string{"-c", `echo started > "$0"; exec cat`, marker}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(paths.ConfigDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.MCPConfig(), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	started := func() bool { _, err := os.Stat(marker); return err == nil }
	var mu sync.Mutex
	do := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
	env := map[string]string{agent.EnvModel: "from-env"}
	opts := options{paths: paths, getenv: func(k string) string { return env[k] }, do: do}
	if err := runApp(context.Background(), runUntil{App: test.NewTempApp(t), done: started}, opts); err != nil {
		t.Fatalf("runApp: %v", err)
	}
	if !started() {
		t.Error("the app did not start the MCP server of mcp.json")
	}
}
