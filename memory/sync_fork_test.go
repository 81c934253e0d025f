package memory

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Two clones of one system (the same machine fingerprint, the state folder
// copied) stamp with one replica until a copy shows the fork. A change of
// one clone that falls under the other's compacted journal (its counter at
// or below the journal's Since, where no record can say who issued it) is
// not taken by the other for one of its own it deleted: the other's
// records lack the entry altogether, which a change it issued within
// TombstoneTTL cannot. Found by a sync history
// (TestSyncHistoriesLoseNothing, seed 1796351440008433318).
func TestSyncCloneChangeUnderCompactedJournalIsKept(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	nowA, nowB := start, start.Add(2*time.Hour) // B's clock is ahead
	open := func(path, state string, now *time.Time) *Store {
		t.Helper()
		s, err := Open(path, Options{StateDir: state, Now: func() time.Time { return *now }, Machine: "machine0", JournalKeep: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		s.jr.minLines, s.jr.checkAt = 4, 4 // compact often
		return s
	}
	pathA, stateA := filepath.Join(root, "a", "memory.json"), filepath.Join(root, "stateA")
	pathB, stateB := filepath.Join(root, "b", "memory.json"), filepath.Join(root, "stateB")
	a := open(pathA, stateA, &nowA)
	if _, _, err := a.Add(Entry{Text: "shared before the clone"}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	os.MkdirAll(filepath.Dir(pathB), 0o700)
	copyTree(t, stateA, stateB)
	if err := os.Rename(journalPath(stateB, pathA), journalPath(stateB, pathB)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pathA)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pathB, data, 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := open(pathA, stateA, &nowA), open(pathB, stateB, &nowB)
	defer a.Close()
	defer b.Close()
	nowA = nowA.Add(time.Hour)
	offline, _, err := a.Add(Entry{Text: "offline on A"})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one on B", "two on B", "three on B", "four on B", "five on B", "six on B"} {
		nowB = nowB.Add(5 * time.Minute)
		if _, _, err := b.Add(Entry{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if since := b.jr.head.Since; since < offline.Rev.N {
		t.Fatalf("B's journal was not compacted past A's add (Since %d, the add's counter %d)", since, offline.Rev.N)
	}
	data, err = os.ReadFile(pathA)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pathB, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range b.List() {
		texts = append(texts, e.Text)
	}
	if !slices.Contains(texts, "offline on A") || len(texts) != 8 {
		t.Errorf("B lists %q, want all 8 with A's offline add", texts)
	}
}
