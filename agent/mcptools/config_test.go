package mcptools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent/mcptools"
)

func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if s, err := mcptools.ReadConfig(path); err != nil || s != nil {
		t.Fatalf("missing file: %v, %v", s, err)
	}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"A": "1"}},
		"web": {"url": "http://127.0.0.1:9000/mcp", "approval": "always"}
	}, "theme": "dark"}`)
	s, err := mcptools.ReadConfig(path)
	if err != nil || len(s) != 2 || s[0].Name != "files" || s[0].Args[2] != "/tmp" || s[0].Env["A"] != "1" ||
		!s[0].NeedsApproval() || s[1].NeedsApproval() {
		t.Fatalf("%+v, %v", s, err)
	}
	if err := mcptools.SetApproval(path, "files", mcptools.Always); err != nil {
		t.Fatal(err)
	}
	s, err = mcptools.ReadConfig(path)
	if err != nil || s[0].NeedsApproval() || s[0].Command != "npx" {
		t.Fatalf("after SetApproval: %+v, %v", s, err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"theme": "dark"`) {
		t.Errorf("SetApproval lost a key:\n%s", b)
	}
	for text, want := range map[string]string{
		`{"mcpServers": {"x": {}}}`:                                    `give either "command" or "url"`,
		`{"mcpServers": {"x": {"command": "a", "url": "http://h/"}}}`:  `give either "command" or "url"`,
		`{"mcpServers": {"x": {"url": "file:///etc/passwd"}}}`:         "want an http or https URL",
		`{"mcpServers": {"x": {"command": "a", "approval": "never"}}}`: `approval "never"`,
		`{"mcpServers": {"x": {"command": 3}}}`:                        `server "x"`,
		`{"mcpServers": `:                                              "mcp.json",
	} {
		write(text)
		if _, err := mcptools.ReadConfig(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}
