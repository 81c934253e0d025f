package memory_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"engram/memory"
)

// TestJournalSizeAfter10kAdds measures the journal after 10,000 adds (in
// batches of 100, so the test stays quick: one record per entry either
// way) and after compaction once the file has held them for longer than
// JournalKeep. The figures are logged (go test -v -run JournalSize).
func TestJournalSizeAfter10kAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 10,000 entries")
	}
	clk := newClock()
	path, state := filepath.Join(t.TempDir(), "memory.json"), t.TempDir()
	opts := memory.Options{MaxEntries: 20000, StateDir: state, Now: clk.Now, JournalKeep: time.Hour}
	s := openStore(t, path, opts)
	for b := range 100 {
		batch := make([]memory.Entry, 100)
		for i := range batch {
			batch[i] = memory.Entry{Text: fmt.Sprintf("Entry %d: the user prefers short answers about topic %d, with code in Go.", b*100+i, i*7)}
		}
		if _, err := s.AddAll(batch); err != nil {
			t.Fatal(err)
		}
	}
	journals, _ := filepath.Glob(filepath.Join(state, "journal", "*.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("journals: %v", journals)
	}
	fi, _ := os.Stat(journals[0])
	file, _ := os.Stat(path)
	t.Logf("after 10,000 adds: journal %d bytes (%.0f per add), memory.json %d bytes", fi.Size(), float64(fi.Size())/10000, file.Size())
	if fi.Size() == 0 {
		t.Fatal("empty journal")
	}
	s.Close()
	clk.Advance(2 * time.Hour)
	s = openStore(t, path, opts)
	if s.Len() != 10000 {
		t.Fatalf("reopened with %d", s.Len())
	}
	mustAdd(t, s, memory.Entry{Text: "one more after the keep"})
	after, _ := os.Stat(journals[0])
	t.Logf("compacted after the keep: journal %d bytes", after.Size())
	if after.Size() >= fi.Size()/100 {
		t.Errorf("the journal was not compacted: %d bytes", after.Size())
	}
}
