package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/adrg/xdg"
)

// RunInTempHome runs a package's tests (from its TestMain) with HOME and the
// XDG folders in a temporary directory, so that neither the tests nor the
// processes they start can write into the real user's folders, and returns
// m.Run's exit code. With MCPServerEnv set, the binary serves the test
// MCP server instead.
func RunInTempHome(m *testing.M) int {
	if mode := os.Getenv(MCPServerEnv); mode != "" {
		serveMCP(mode)
		return 0
	}
	home, err := os.MkdirTemp("", "engram-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "test home:", err)
		return 2
	}
	defer os.RemoveAll(home)
	for _, v := range []struct{ name, dir string }{
		{"HOME", ""}, {"XDG_CONFIG_HOME", ".config"}, {"XDG_DATA_HOME", ".local/share"},
		{"XDG_STATE_HOME", ".local/state"}, {"XDG_CACHE_HOME", ".cache"},
	} {
		if err := os.Setenv(v.name, filepath.Join(home, v.dir)); err != nil {
			fmt.Fprintln(os.Stderr, "test home:", err)
			return 2
		}
	}
	xdg.Reload()
	return m.Run()
}
