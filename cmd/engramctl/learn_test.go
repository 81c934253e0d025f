package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

// writeChats writes n chats of two turns each straight into the chats
// directory, as the app saves them.
func (e *chatEnv) writeChats(t *testing.T, n int) []string {
	t.Helper()
	dir := filepath.Join(e.vars["XDG_DATA_HOME"], "engram", "chats")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var ids []string
	for i := range n {
		at := base.Add(time.Duration(i) * time.Hour)
		c := agent.Chat{Info: agent.ChatInfo{ID: fmt.Sprintf("20260601-%06d-%08x", i, i), Title: fmt.Sprintf("chat %d", i),
			Created: at, Updated: at, AutoRecall: true}}
		for turn := range 2 {
			c.Messages = append(c.Messages,
				agent.Message{Role: agent.RoleUser, Text: fmt.Sprintf("Please remember that project item %d-%d uses the blue theme.", i, turn), Time: at},
				agent.Message{Role: agent.RoleAssistant, Text: "I will keep that in mind.", Time: at})
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.ID+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	return ids
}

var itemRE = regexp.MustCompile(`project item (\d+-\d+)`)

// newLearnEnv is a chatEnv whose fake answers each
// distillation with one memory about the turn's item, and counts them. The
// fake is set up before its server starts serving, so the server's
// goroutines see it.
func newLearnEnv(t *testing.T, count *atomic.Int64, onCall func(n int64)) *chatEnv {
	t.Helper()
	f := &agenttest.Fake{Respond: learnReply(count, onCall)}
	return newChatEnvOn(t, &agenttest.Server{Fake: f, HTTP: httptest.NewServer(f)})
}

func learnReply(count *atomic.Int64, onCall func(n int64)) func(agenttest.Request) agenttest.Reply {
	return func(r agenttest.Request) agenttest.Reply {
		m := itemRE.FindStringSubmatch(r.LastUser())
		if m == nil {
			return agenttest.Reply{Text: "[]"}
		}
		n := count.Add(1)
		if onCall != nil {
			onCall(n)
		}
		return agenttest.Reply{Text: `[{"op":"add","kind":"fact","text":"Project item ` + m[1] + ` uses the blue theme."}]`}
	}
}

func TestMemoryLearnOneChatAndUsage(t *testing.T) {
	var calls atomic.Int64
	e := newLearnEnv(t, &calls, nil)
	ids := e.writeChats(t, 3)
	if code, _, errOut := e.run(t, "memory", "learn"); code != exitUsage || !strings.Contains(errOut, "--chat ID or --all") {
		t.Errorf("no --chat or --all: exit %d, %s", code, errOut)
	}
	code, out, errOut := e.run(t, "memory", "learn", "--delay", "0", "--chat", ids[1])
	if code != exitOK || !strings.Contains(out, "learned from 2 turns: 2 saved") ||
		!strings.Contains(errOut, `chat 1/1 "chat 1": turn 2/2`) {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.vars["XDG_STATE_HOME"], "engram", "learn.json")); err != nil {
		t.Errorf("no progress file under the state dir: %v", err)
	}
	// Run again: nothing left to do in that chat.
	code, out, _ = e.run(t, "memory", "learn", "--delay", "0", "--chat", ids[1])
	if code != exitOK || !strings.Contains(out, "learned from 0 turns") || calls.Load() != 2 {
		t.Errorf("second run: exit %d, %q, %d calls", code, out, calls.Load())
	}
	// --restart starts over; consolidation keeps it from duplicating.
	code, out, _ = e.run(t, "memory", "learn", "--delay", "0", "--restart", "--chat", ids[1])
	if code != exitOK || !strings.Contains(out, "learned from 2 turns: 0 saved") {
		t.Errorf("restart: exit %d, %q", code, out)
	}
	if n := len(e.globalStore(t).List()); n != 2 {
		t.Errorf("%d memories, want 2", n)
	}
}

// TestMemoryLearnResumesAfterKill runs `engramctl memory learn --all` over
// 50 chats in a real process, kills it part way, runs it again, and checks
// that every turn was learned once and the second run did not start over.
func TestMemoryLearnResumesAfterKill(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build engramctl")
	}
	bin := filepath.Join(t.TempDir(), "engramctl")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const chats, turns = 50, 100
	var calls atomic.Int64
	reached := make(chan struct{})
	var once sync.Once
	e := newLearnEnv(t, &calls, func(n int64) {
		if n == 30 {
			once.Do(func() { close(reached) })
		}
	})
	e.writeChats(t, chats)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home}
	for k, v := range e.vars {
		env = append(env, k+"="+v)
	}
	cmd := exec.Command(bin, "memory", "learn", "--all", "--delay", "5ms")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reached:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the first run did not get to 30 calls")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	first := calls.Load()
	if first >= turns {
		t.Fatalf("the first run finished (%d calls) before it was killed", first)
	}

	cmd = exec.Command(bin, "memory", "learn", "--all", "--delay", "0")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	total := calls.Load()
	// At most the turn in flight at the kill is asked again.
	if total < turns || total > turns+1 {
		t.Errorf("%d calls over both runs (first %d), want %d or %d: the second run did not resume", total, first, turns, turns+1)
	}
	st := e.globalStore(t)
	seen := map[string]int{}
	for _, m := range st.List() {
		seen[m.Text]++
	}
	for i := range chats {
		for turn := range 2 {
			if text := fmt.Sprintf("Project item %d-%d uses the blue theme.", i, turn); seen[text] != 1 {
				t.Errorf("%q stored %d times", text, seen[text])
			}
		}
	}
	if len(seen) != turns {
		t.Errorf("%d memories, want %d", len(seen), turns)
	}
	if !strings.Contains(string(out), "learned from") {
		t.Errorf("second run output: %s", out)
	}
}
