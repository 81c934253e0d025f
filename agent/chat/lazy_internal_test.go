package chat

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// seedChat writes, through a store of its own, a chat of n messages in dir
// and returns its ID.
func seedChat(t testing.TB, dir string, title string, n int) string {
	t.Helper()
	cs, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cs.Create(true, "")
	if err != nil {
		t.Fatal(err)
	}
	err = cs.Update(info.ID, func(c *Chat) bool {
		c.Title = title
		for i := range n {
			c.Messages = append(c.Messages, Message{ID: fmt.Sprintf("m%d", i), Role: RoleUser,
				Text: fmt.Sprintf("message %d of %s", i, title)})
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return info.ID
}

func messageIDs(c Chat) []string {
	var out []string
	for _, m := range c.Messages {
		out = append(out, m.ID)
	}
	return out
}

// TestLoadKeepsHeadersOnly: a loaded store holds the chats' headers, not
// their messages; reading a chat reads its file (what another writer added
// meanwhile included) and keeps it out of memory; changing it brings it in
// whole.
func TestLoadKeepsHeadersOnly(t *testing.T) {
	dir := t.TempDir()
	id := seedChat(t, dir, "Lisbon", 3)
	cs, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if l := cs.List(); len(l) != 1 || l[0].Title != "Lisbon" || !l[0].AutoRecall {
		t.Fatalf("list = %+v", l)
	}
	if c := cs.chats[id]; c.Messages != nil || !cs.partial[id] {
		t.Fatalf("after load, messages in memory: %d", len(c.Messages))
	}

	other, err := Load(dir, time.Now) // another writer adds a message
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Update(id, func(c *Chat) bool {
		c.Messages = append(c.Messages, Message{ID: "m3", Role: RoleUser, Text: "from the other writer"})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	c, err := cs.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageIDs(c); !slices.Equal(got, []string{"m0", "m1", "m2", "m3"}) {
		t.Errorf("get: messages %v", got)
	}
	if cs.chats[id].Messages != nil {
		t.Error("get brought the messages into memory")
	}
	if m := cs.Search("other writer", 10); len(m) != 1 || m[0].MsgID != "m3" {
		t.Errorf("search = %+v", m)
	}

	if err := cs.Update(id, func(c *Chat) bool {
		c.Messages = append(c.Messages, Message{ID: "m4", Role: RoleUser, Text: "mine"})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"m0", "m1", "m2", "m3", "m4"}
	if got := messageIDs(*cs.chats[id]); !slices.Equal(got, want) || cs.partial[id] {
		t.Errorf("after a change, in memory: %v (partial %v)", got, cs.partial[id])
	}
	disk, err := readChatFile(cs.path(id))
	if err != nil {
		t.Fatal(err)
	}
	if got := messageIDs(disk); !slices.Equal(got, want) {
		t.Errorf("file: messages %v, want %v", got, want)
	}
}

// TestPartialChatErrors: a chat whose file goes away or breaks after load
// fails to read with an error, and a change of it fails without writing.
func TestPartialChatErrors(t *testing.T) {
	dir := t.TempDir()
	gone := seedChat(t, dir, "gone", 1)
	broken := seedChat(t, dir, "broken", 1)
	cs, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cs.path(gone)); err != nil {
		t.Fatal(err)
	}
	bad := []byte(`{"id": "` + broken + `", "title": "broken", "messages": 5}`)
	if err := os.WriteFile(cs.path(broken), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{gone, broken} {
		if _, err := cs.Get(id); err == nil {
			t.Errorf("get %s: no error", id)
		}
		if err := cs.Update(id, func(c *Chat) bool { c.Title = "new"; return true }); err == nil ||
			!strings.Contains(err.Error(), id) {
			t.Errorf("update %s: err = %v", id, err)
		}
	}
	if b, err := os.ReadFile(cs.path(broken)); err != nil || string(b) != string(bad) {
		t.Errorf("the broken file was changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, gone+".json")); !os.IsNotExist(err) {
		t.Errorf("the removed chat was written again: %v", err)
	}
}

// BenchmarkLoad1000 loads a folder of 1,000 chats of 40 messages.
func BenchmarkLoad1000(b *testing.B) {
	dir := b.TempDir()
	id := seedChat(b, dir, "template", 40)
	tmpl, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 999 {
		other := fmt.Sprintf("20260101-000000-%08x", i)
		text := strings.ReplaceAll(string(tmpl), id, other)
		if err := os.WriteFile(filepath.Join(dir, other+".json"), []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		cs, err := Load(dir, time.Now)
		if err != nil || len(cs.List()) != 1000 {
			b.Fatalf("load: %v", err)
		}
	}
}
