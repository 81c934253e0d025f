package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A journal compacted past what the file holds (memory.json replaced by a
// copy from before the compacted changes) cannot back the replica's old
// changes: the store stamps with a new replica, and the other device, which
// holds them, keeps them.
func TestSyncCompactedJournalOlderCopyDeletesNothing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	dir := t.TempDir()
	pathA, pathB := filepath.Join(dir, "a", "memory.json"), filepath.Join(dir, "b", "memory.json")
	open := func(path, state string) *Store {
		t.Helper()
		s, err := Open(path, Options{StateDir: filepath.Join(dir, state), Now: clock, JournalKeep: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		s.jr.minLines, s.jr.checkAt = 4, 4
		return s
	}
	add := func(s *Store, text string) {
		t.Helper()
		now = now.Add(time.Second)
		if _, _, err := s.Add(Entry{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	copyFile := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a := open(pathA, "a-state")
	add(a, "before the older copy")
	old, _ := os.ReadFile(pathA)
	for i := range 5 {
		add(a, fmt.Sprintf("compacted away %d", i))
	}
	b := open(pathB, "b-state")
	defer b.Close()
	copyFile(pathA, pathB)
	if err := b.Reload(); err != nil || b.Len() != 6 {
		t.Fatalf("B: %d entries, %v", b.Len(), err)
	}
	now = now.Add(2 * time.Hour)
	for i := range 4 {
		add(a, fmt.Sprintf("after the keep %d", i))
	}
	if a.jr.head.Since == 0 {
		t.Fatal("the journal was not compacted")
	}
	a.Close()
	if err := os.WriteFile(pathA, old, 0o600); err != nil {
		t.Fatal(err)
	}
	a = open(pathA, "a-state")
	defer a.Close()
	add(a, "after the older copy")
	copyFile(pathA, pathB)
	if err := b.Reload(); err != nil {
		t.Fatal(err)
	}
	if n := b.Len(); n != 11 {
		t.Errorf("B lists %d, want 11: %v", n, entryTexts(b.List()))
	}
}

func entryTexts(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Text
	}
	return out
}
