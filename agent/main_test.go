package agent_test

import (
	"os"
	"testing"

	"engram/agent/agenttest"
)

// TestMain keeps the tests, and the engramctl processes they start, out of
// the real user's folders.
func TestMain(m *testing.M) { os.Exit(agenttest.RunInTempHome(m)) }
