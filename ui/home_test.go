package ui

import (
	"os"
	"testing"

	"engram/agent/agenttest"
)

// TestMain keeps the tests out of the real user's folders.
func TestMain(m *testing.M) { os.Exit(agenttest.RunInTempHome(m)) }
