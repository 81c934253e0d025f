package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"engram/agent/agenttest"
	"engram/memory"
)

// ctlProcess runs engramctl as a real process (the test binary re-executed,
// see TestMain) with only e's environment, and returns its stdout; it fails
// the test when the process fails.
func (e *chatEnv) ctlProcess(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{"ENGRAMCTL_AS_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + e.home}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Run(); err != nil {
		t.Fatalf("engramctl %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errw.String())
	}
	return out.String()
}

// TestChatAndLearnJournalTheirMemories: a memory the model saves through
// `engramctl chat`, and those `engramctl memory learn` saves, are journaled
// in the one state folder `engramctl memory` uses, under its device ID, so
// that they survive an older copy of memory.json arriving (issue 21 case 4).
func TestChatAndLearnJournalTheirMemories(t *testing.T) {
	const boat = "The user's boat is called Albatross."
	var learned atomic.Int64
	learn := learnReply(&learned, nil)
	f := &agenttest.Fake{Respond: func(r agenttest.Request) agenttest.Reply {
		switch {
		case len(r.Tools) == 0: // distillation, or learn's consolidation
			return learn(r)
		case len(r.ToolResults()) > 0:
			return agenttest.Reply{Text: "Noted."}
		}
		return agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "w", Name: "memory_write",
			Args: `{"kind":"fact","text":"` + boat + `"}`}}}
	}}
	e := newChatEnvOn(t, &agenttest.Server{Fake: f, HTTP: httptest.NewServer(f)})
	file := filepath.Join(e.vars["XDG_CONFIG_HOME"], "engram", "memory.json")
	state := filepath.Join(e.vars["XDG_STATE_HOME"], "engram")

	e.ctlProcess(t, "memory", "add", "The user's sister is called Ada.")
	older, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	e.ctlProcess(t, "chat", "Remember that my boat is called Albatross.")
	e.writeChats(t, 1)
	e.ctlProcess(t, "memory", "learn", "--all", "--delay", "0")
	want := []string{"The user's sister is called Ada.", boat, "Project item 0-0 uses the blue theme.",
		"Project item 0-1 uses the blue theme."}
	list := func() []memory.Entry {
		var es []memory.Entry
		if err := json.Unmarshal([]byte(e.ctlProcess(t, "memory", "list", "--json")), &es); err != nil {
			t.Fatal(err)
		}
		return es
	}
	if es := list(); len(es) != len(want) {
		t.Fatalf("%d memories before the older copy arrived, want %d: %+v", len(es), len(want), es)
	}

	if err := os.WriteFile(file, older, 0o600); err != nil { // the sync tool brings the older copy
		t.Fatal(err)
	}
	es := list()
	texts := map[string]bool{}
	for _, m := range es {
		texts[m.Text] = true
	}
	for _, w := range want {
		if !texts[w] {
			t.Errorf("%q was lost when the older copy arrived", w)
		}
	}
	device, err := os.ReadFile(filepath.Join(state, "device-id"))
	if err != nil {
		t.Fatalf("no device ID in the state folder: %v", err)
	}
	id, _, _ := strings.Cut(string(device), "\n") // the ID, then the machine it belongs to
	for _, m := range es {
		if !strings.HasPrefix(m.Rev.Device, strings.TrimSpace(id)) {
			t.Errorf("%q carries rev %s, not one of this device (%s)", m.Text, m.Rev, device)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "learn.json")); err != nil {
		t.Errorf("learn keeps its progress elsewhere than the state folder: %v", err)
	}
}
