package markdown

import (
	"os"
	"testing"

	"engram/agent/agenttest"
)

// TestMain keeps the tests out of the real user's folders: measuring text
// makes Fyne's font fallback write its font index into the cache folder.
func TestMain(m *testing.M) { os.Exit(agenttest.RunInTempHome(m)) }
