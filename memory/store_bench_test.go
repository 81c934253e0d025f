package memory_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"engram/memory"
)

// benchStore writes a store of n entries of realistic length to a new file
// and returns its path.
func benchStore(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "memory.json")
	es := make([]memory.Entry, n)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range es {
		es[i] = memory.Entry{
			Kind:    memory.Kinds[i%4],
			Text:    fmt.Sprintf("Entry %d: the user prefers short answers about topic %d, with code in Go and tests next to it; remember variant %d.", i, i*7, i*13),
			Created: t0.Add(time.Duration(i) * time.Minute),
		}
	}
	s, err := memory.Open(path, memory.Options{MaxEntries: n + 1000})
	if err != nil {
		b.Fatal(err)
	}
	res, err := s.AddAll(es)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil || !r.New {
			b.Fatalf("seed entry: new=%v err=%v", r.New, r.Err)
		}
	}
	s.Close()
	return path
}

// BenchmarkOpen10k opens and parses a 10,000-entry store (target < 100 ms),
// without the index: see BenchmarkOpenFirstRecall10k.
func BenchmarkOpen10k(b *testing.B) {
	path := benchStore(b, 10000)
	b.ResetTimer()
	for b.Loop() {
		s, err := memory.Open(path, memory.Options{MaxEntries: 20000})
		if err != nil {
			b.Fatal(err)
		}
		if n := s.Len(); n != 10000 {
			b.Fatalf("opened %d entries, want 10000", n)
		}
		s.Close()
	}
}

// BenchmarkOpenFirstRecall10k opens a 10,000-entry store and recalls once,
// as the first message after starting does: the open, the index build the
// first recall pays, and the search.
func BenchmarkOpenFirstRecall10k(b *testing.B) {
	path := benchStore(b, 10000)
	b.ResetTimer()
	for b.Loop() {
		s, err := memory.Open(path, memory.Options{MaxEntries: 20000})
		if err != nil {
			b.Fatal(err)
		}
		if hits := s.Recall("short answers about topic 700 in Go", nil, memory.RecallOptions{}); len(hits) == 0 {
			b.Fatal("the first recall found nothing")
		}
		s.Close()
	}
}

// BenchmarkAdd10k adds one entry to an open 10,000-entry store, with the
// locked re-check of the file and the fsynced atomic write (target < 20 ms).
func BenchmarkAdd10k(b *testing.B) {
	path := benchStore(b, 10000)
	s, err := memory.Open(path, memory.Options{MaxEntries: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	i := 0
	for b.Loop() {
		i++
		if _, isNew, err := s.Add(memory.Entry{Text: fmt.Sprintf("benchmark addition %d, a new fact to keep", i)}); err != nil || !isNew {
			b.Fatalf("add: new=%v err=%v", isNew, err)
		}
	}
}

// BenchmarkOpen10kJournal is BenchmarkOpen10k with a state directory, as
// the app and engramctl open stores: the journal is read too.
func BenchmarkOpen10kJournal(b *testing.B) {
	path := benchStore(b, 10000)
	state := b.TempDir()
	s, err := memory.Open(path, memory.Options{MaxEntries: 20000, StateDir: state})
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	b.ResetTimer()
	for b.Loop() {
		s, err := memory.Open(path, memory.Options{MaxEntries: 20000, StateDir: state})
		if err != nil {
			b.Fatal(err)
		}
		if n := s.Len(); n != 10000 {
			b.Fatalf("opened %d entries, want 10000", n)
		}
		s.Close()
	}
}

// BenchmarkAdd10kJournal is BenchmarkAdd10k with a state directory: each
// Add also appends to the journal and fsyncs it.
func BenchmarkAdd10kJournal(b *testing.B) {
	path := benchStore(b, 10000)
	s, err := memory.Open(path, memory.Options{MaxEntries: 1 << 30, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	i := 0
	for b.Loop() {
		i++
		if _, isNew, err := s.Add(memory.Entry{Text: fmt.Sprintf("benchmark addition %d, a new fact to keep", i)}); err != nil || !isNew {
			b.Fatalf("add: new=%v err=%v", isNew, err)
		}
	}
}
