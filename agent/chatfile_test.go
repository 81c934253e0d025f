package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

// TestTwoWritersOnOneChatKeepBothTurns: two agents (as the app and
// engramctl would be) answer in the same chat at once; the file keeps both
// turns, each whole, and the agents see each other's.
func TestTwoWritersOnOneChatKeepBothTurns(t *testing.T) {
	h := newHarness(t, nil, nil)
	id := h.newChat()
	h.turn(id, "first question")
	cfg := h.a.Config()
	b, err := agent.New(agent.Options{Config: cfg, Paths: h.paths, HTTPClient: h.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	// Both turns are in the middle of their answers at once.
	hold := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	h.srv.Respond = func(r agenttest.Request) agenttest.Reply {
		started.Done()
		return agenttest.Reply{Text: "Answer to " + r.LastUser(), Hold: hold}
	}
	go func() { started.Wait(); close(hold) }()
	if err := h.a.Send(context.Background(), id, "question A"); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(context.Background(), id, "question B"); err != nil {
		t.Fatal(err)
	}
	if log := h.until(id); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	for e := range b.Events() {
		if d, ok := e.(agent.TurnDone); ok {
			if d.Err != nil {
				t.Fatal(d.Err)
			}
			break
		}
	}
	h.a.Wait()
	b.Wait()

	texts := func(c agent.Chat) []string {
		var out []string
		for _, m := range c.Messages {
			out = append(out, m.Text)
		}
		return out
	}
	onDisk := func() []string {
		t.Helper()
		c, err := agent.New(agent.Options{Config: cfg, Paths: h.paths})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		chat, err := c.Chat(id)
		if err != nil {
			t.Fatal(err)
		}
		return texts(chat)
	}
	got := onDisk()
	ab := []string{"first question", "Echo: first question", "question A", "Answer to question A", "question B",
		"Answer to question B"}
	ba := []string{"first question", "Echo: first question", "question B", "Answer to question B", "question A",
		"Answer to question A"}
	if !slices.Equal(got, ab) && !slices.Equal(got, ba) {
		t.Fatalf("the chat file holds %q", got)
	}
	// The agent that wrote last has it all; the other catches up with its
	// next write.
	if err := b.RenameChat(id, "Renamed by B"); err != nil {
		t.Fatal(err)
	}
	if err := h.a.RenameChat(id, "Renamed by A"); err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]*agent.Agent{"A": h.a, "B": b} {
		if c, _ := a.Chat(id); !slices.Equal(texts(c), got) {
			t.Errorf("agent %s has %q", name, texts(c))
		}
	}
	if got := onDisk(); len(got) != 6 {
		t.Errorf("after the renames the file holds %q", got)
	}
}

func TestChatFilesOfDeadWritersAndOldFiles(t *testing.T) {
	h := newHarness(t, nil, nil)
	id := h.newChat()
	h.turn(id, "hello")
	dir := h.paths.ChatsDir()
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{"." + id + ".json.tmp-111", ".other.json.tmp-222"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"id":`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	fresh := filepath.Join(dir, ".another.json.tmp-333") // a live writer's, maybe
	if err := os.WriteFile(fresh, []byte(`{"id":`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A new agent removes the old temporary files at load, not the fresh one.
	b, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*"))
	if len(left) != 1 || left[0] != fresh {
		t.Errorf("temporary files left: %q", left)
	}
	// A write of a chat removes its temporary files, of any age: it holds
	// the lock, so no live writer has one.
	mine := filepath.Join(dir, "."+id+".json.tmp-444")
	if err := os.WriteFile(mine, []byte(`{"id":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.a.RenameChat(id, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the chat's temporary file is still there: %v", err)
	}

	// A chat file that was edited into something unreadable is moved
	// aside by the next write, not overwritten.
	path := filepath.Join(dir, id+".json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.a.RenameChat(id, "y"); err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(path + ".unreadable-*")
	if len(aside) != 1 {
		t.Fatalf("set aside: %q", aside)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != "{not json" {
		t.Errorf("set aside %q", b)
	}
}

// TestChatFileWithoutMessageIDs: a chat written before messages had IDs
// loads, and two writers still merge it without doubling its messages.
func TestChatFileWithoutMessageIDs(t *testing.T) {
	h := newHarness(t, nil, nil)
	id := h.newChat()
	path := filepath.Join(h.paths.ChatsDir(), id+".json")
	legacy := `{"id":"` + id + `","title":"Old","created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:04:05Z",
"auto_recall":true,"messages":[
 {"role":"user","text":"old question","time":"2026-01-02T03:04:05Z"},
 {"role":"assistant","text":"old answer","time":"2026-01-02T03:04:06Z"}]}`
	if err := os.WriteFile(path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths, HTTPClient: h.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Send(context.Background(), id, "new question"); err != nil {
		t.Fatal(err)
	}
	for e := range a.Events() {
		if _, ok := e.(agent.TurnDone); ok {
			break
		}
	}
	a.Wait()
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "old question"); n != 1 || !strings.Contains(string(b), "Echo: new question") {
		t.Errorf("the chat file:\n%s", b)
	}
}
