package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
)

// TestMain lets the tests run engramctl as a real process: the test binary
// re-executed with ENGRAMCTL_AS_MAIN=1 is engramctl.
func TestMain(m *testing.M) {
	if os.Getenv("ENGRAMCTL_AS_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
	}
	// The tests, and every engramctl they start, keep out of the real
	// user's folders.
	os.Exit(agenttest.RunInTempHome(m))
}

func TestChatShowsReasoningApart(t *testing.T) {
	e := newChatEnv(t)
	e.srv.Push(agenttest.Reply{Pieces: []string{"<think>The user greets me.", "</think>", "Hello!"}})
	code, out, errOut := e.run(t, "chat", "hi")
	if code != exitOK || out != "Hello!\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "thinking: The user greets me.\n(thought for ") {
		t.Errorf("stderr lacks the reasoning:\n%s", errOut)
	}
}

func TestChatInterruptedThenRetry(t *testing.T) {
	e := newChatEnv(t)
	e.srv.Push(agenttest.Reply{Text: "A first half that never ends", CutAfter: 4})
	code, out, errOut := e.run(t, "chat", "hi")
	m := chatIDLine.FindStringSubmatch(errOut)
	if code != exitError || out == "" || m == nil || !strings.Contains(errOut, "broke off") ||
		!strings.Contains(errOut, "engramctl chat --chat "+m[1]+" --retry") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	e.srv.Push(agenttest.Reply{Text: "The whole answer."})
	code, out, errOut = e.run(t, "chat", "--chat", m[1], "--retry")
	if code != exitOK || out != "The whole answer.\n" {
		t.Fatalf("retry: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if r := e.srv.Requests()[1]; r.LastUser() != "hi" || len(r.Messages) != 2 {
		t.Errorf("retry sent %+v", r.Messages)
	}
	if code, _, _ := e.run(t, "chat", "--retry"); code != exitUsage {
		t.Errorf("--retry without --chat: exit %d", code)
	}
}

// TestFourProcessesOnOneChat runs four engramctl processes at once on one
// chat: every turn is kept, whole (question and answer together).
func TestFourProcessesOnOneChat(t *testing.T) {
	e := newChatEnv(t)
	cfgDir := filepath.Join(e.vars["XDG_CONFIG_HOME"], "engram")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"auto_recall":true,"distill":false}`),
		0o600); err != nil {
		t.Fatal(err)
	}
	// The answers wait until all four questions have arrived, so the
	// processes really overlap.
	release := make(chan struct{})
	var mu sync.Mutex
	arrived := 0
	e.srv.Respond = func(r agenttest.Request) agenttest.Reply {
		if !strings.HasPrefix(r.LastUser(), "question ") {
			return agenttest.Reply{Text: "Echo: " + r.LastUser()}
		}
		mu.Lock()
		arrived++
		if arrived == 4 {
			close(release)
		}
		mu.Unlock()
		return agenttest.Reply{Text: "Answer to " + r.LastUser(), Hold: release}
	}
	code, _, errOut := e.run(t, "chat", "the first turn")
	m := chatIDLine.FindStringSubmatch(errOut)
	if code != exitOK || m == nil {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	id := m[1]
	var env []string
	for k, v := range e.vars {
		env = append(env, k+"="+v)
	}
	env = append(env, "ENGRAMCTL_AS_MAIN=1", "PATH="+os.Getenv("PATH"), "HOME="+e.home)
	var wg sync.WaitGroup
	errs := make([]string, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "chat", "--chat", id, fmt.Sprintf("question %d", i))
			cmd.Env = env
			var out, errw bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errw
			if err := cmd.Run(); err != nil || out.String() != fmt.Sprintf("Answer to question %d\n", i) {
				errs[i] = fmt.Sprintf("process %d: %v, stdout %q, stderr:\n%s", i, err, out.String(), errw.String())
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	b, err := os.ReadFile(filepath.Join(e.vars["XDG_DATA_HOME"], "engram", "chats", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var c agent.Chat
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range c.Messages {
		texts = append(texts, m.Text)
	}
	if len(texts) != 10 || texts[0] != "the first turn" {
		t.Fatalf("the chat holds %d messages: %q", len(texts), texts)
	}
	var order []string
	for i := 2; i < len(texts); i += 2 {
		q := strings.TrimPrefix(texts[i], "question ")
		if texts[i+1] != "Answer to question "+q {
			t.Errorf("turn %q is not whole: %q", texts[i], texts[i+1])
		}
		order = append(order, q)
	}
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	if !slices.Equal(sorted, []string{"0", "1", "2", "3"}) {
		t.Errorf("turns %q", order)
	}
	if tmps, _ := filepath.Glob(filepath.Join(e.vars["XDG_DATA_HOME"], "engram", "chats", ".*tmp*")); len(tmps) > 0 {
		t.Errorf("temporary files left: %q", tmps)
	}
}
