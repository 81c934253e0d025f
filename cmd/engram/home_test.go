package main

import (
	"os"
	"testing"

	"engram/agent/agenttest"
)

// TestMain keeps the tests, and the app processes they start, out of the
// real user's folders.
func TestMain(m *testing.M) { os.Exit(agenttest.RunInTempHome(m)) }
