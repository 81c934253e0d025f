package mcptools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent/mcptools"
)

// Adding, switching off and removing servers edits mcp.json and keeps the
// keys Engram does not know, of the file and of each server.
func TestEditServers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := mcptools.AddServer(path, mcptools.Server{Name: "files", Command: "npx", Args: []string{"-y", "fs"}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"theme": "dark", "mcpServers": {"files": {"command": "npx", "args": ["-y", "fs"], "x-note": "mine"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := mcptools.AddServer(path, mcptools.Server{Name: "web", URL: "https://example.com/mcp", Approval: mcptools.Always}); err != nil {
		t.Fatal(err)
	}
	if err := mcptools.SetDisabled(path, "files", true); err != nil {
		t.Fatal(err)
	}
	s, err := mcptools.ReadConfig(path)
	if err != nil || len(s) != 2 || !s[0].Disabled || s[0].Args[1] != "fs" || s[1].URL != "https://example.com/mcp" ||
		s[1].NeedsApproval() {
		t.Fatalf("after add and switch off: %+v, %v", s, err)
	}
	if err := mcptools.SetDisabled(path, "files", false); err != nil {
		t.Fatal(err)
	}
	if err := mcptools.RemoveServer(path, "web"); err != nil {
		t.Fatal(err)
	}
	s, err = mcptools.ReadConfig(path)
	if err != nil || len(s) != 1 || s[0].Disabled || s[0].Name != "files" {
		t.Fatalf("after switch on and remove: %+v, %v", s, err)
	}
	b, _ := os.ReadFile(path)
	for _, kept := range []string{`"theme": "dark"`, `"x-note": "mine"`} {
		if !strings.Contains(string(b), kept) {
			t.Errorf("the edits lost %s:\n%s", kept, b)
		}
	}
	if strings.Contains(string(b), "disabled") {
		t.Errorf("switched on, the server still says disabled:\n%s", b)
	}
}

// Bad edits are errors that change nothing.
func TestEditServersRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := mcptools.AddServer(path, mcptools.Server{Name: "files", Command: "npx"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	for what, err := range map[string]error{
		"taken name":      mcptools.AddServer(path, mcptools.Server{Name: "files", Command: "other"}),
		"no command":      mcptools.AddServer(path, mcptools.Server{Name: "x"}),
		"no name":         mcptools.AddServer(path, mcptools.Server{Command: "x"}),
		"bad url":         mcptools.AddServer(path, mcptools.Server{Name: "x", URL: "ftp://h/"}),
		"remove unknown":  mcptools.RemoveServer(path, "nope"),
		"disable unknown": mcptools.SetDisabled(path, "nope", true),
		"approve unknown": mcptools.SetApproval(path, "nope", mcptools.Always),
	} {
		if err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("refused edits changed mcp.json:\n%s", after)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := mcptools.RemoveServer(path, "files"); err == nil || !strings.Contains(err.Error(), "mcp.json") {
		t.Errorf("edit of a file that does not parse: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"mcpServers": ` {
		t.Errorf("a file that does not parse was rewritten: %s", b)
	}
}
