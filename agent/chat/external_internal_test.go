package chat

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// rescan is Rescan, failing the test on an error.
func rescan(t *testing.T, cs *Store) []string {
	t.Helper()
	changed, err := cs.Rescan()
	if err != nil {
		t.Fatalf("Rescan: %v", err)
	}
	return changed
}

// say adds a question and its answer to chat id of cs, and saves them.
func say(t *testing.T, cs *Store, id, q, a string) {
	t.Helper()
	err := cs.Update(id, func(c *Chat) bool {
		c.Messages = append(c.Messages, Message{ID: q, Role: RoleUser, Text: q},
			Message{ID: a, ReplyTo: q, Role: RoleAssistant, Text: a})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRescanTakesInOtherWriters(t *testing.T) {
	dir := t.TempDir()
	window, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := Load(dir, time.Now) // another process: engramctl chat
	if err != nil {
		t.Fatal(err)
	}
	if got := rescan(t, window); len(got) != 0 {
		t.Fatalf("nothing changed, Rescan = %v", got)
	}

	// A chat another process starts is listed, with its messages.
	info, err := ctl.Create(true, "")
	if err != nil {
		t.Fatal(err)
	}
	id := info.ID
	say(t, ctl, id, "q1", "a1")
	if got := rescan(t, window); !slices.Equal(got, []string{id}) {
		t.Fatalf("a new chat of another process: Rescan = %v", got)
	}
	c, err := window.Get(id)
	if err != nil || !slices.Equal(messageIDs(c), []string{"q1", "a1"}) {
		t.Fatalf("the new chat = %v, %v", messageIDs(c), err)
	}

	// The window writes to it: its own write reports nothing.
	say(t, window, id, "q2", "a2")
	if got := rescan(t, window); len(got) != 0 {
		t.Fatalf("after the store's own write, Rescan = %v", got)
	}

	// The other process adds a turn to the chat the window holds in
	// memory: merged in, nothing of the window's lost.
	say(t, ctl, id, "q3", "a3")
	if got := rescan(t, window); !slices.Equal(got, []string{id}) {
		t.Fatalf("a turn of another process: Rescan = %v", got)
	}
	if c, _ = window.Get(id); !slices.Equal(messageIDs(c), []string{"q1", "a1", "q2", "a2", "q3", "a3"}) {
		t.Fatalf("merged = %v", messageIDs(c))
	}
	if got := rescan(t, window); len(got) != 0 {
		t.Fatalf("rescanned again with no change, Rescan = %v", got)
	}

	// A file that does not parse is an error and no chat; the others stay.
	bad := filepath.Join(dir, "20260101-000000-0000.json")
	if err := os.WriteFile(bad, []byte(`{"id": "20260101-000000-0000", "messages": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if changed, err := window.Rescan(); err == nil || len(changed) != 0 {
		t.Fatalf("an unparsable chat file: Rescan = %v, %v", changed, err)
	}
	if l := window.List(); len(l) != 1 || l[0].ID != id {
		t.Fatalf("list = %+v", l)
	}

	// A removed file leaves the chat listed (a sync tool may replace it).
	if err := os.Remove(filepath.Join(dir, id+".json")); err != nil {
		t.Fatal(err)
	}
	if got := rescan(t, window); len(got) != 0 {
		t.Fatalf("a removed file: Rescan = %v", got)
	}
	if _, err := window.Info(id); err != nil {
		t.Fatalf("the chat whose file went: %v", err)
	}
}

func TestRescanGivesTheNewHeaderOfAChatOnlyOnDisk(t *testing.T) {
	dir := t.TempDir()
	id := seedChat(t, dir, "Old title", 2)
	window, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Update(id, func(c *Chat) bool { c.Title = "New title"; return true }); err != nil {
		t.Fatal(err)
	}
	if got := rescan(t, window); !slices.Equal(got, []string{id}) {
		t.Fatalf("a renamed chat: Rescan = %v", got)
	}
	if info, _ := window.Info(id); info.Title != "New title" {
		t.Fatalf("title = %q", info.Title)
	}
	if !window.partial[id] {
		t.Error("a chat only read stays out of memory after a rescan")
	}
}

func TestIsChatFile(t *testing.T) {
	for name, want := range map[string]bool{
		"20260102-030405-abcd.json": true, "20260102-030405-abcd.json.lock": false,
		".20260102-030405-abcd.json.tmp-1": false, "notes.txt": false,
		"20260102-030405-abcd.json.unreadable-20260102-030405.000000000": false,
	} {
		if got := IsChatFile(name); got != want {
			t.Errorf("IsChatFile(%q) = %v", name, got)
		}
	}
}
