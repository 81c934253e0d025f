package memory_test

import (
	"os"
	"path/filepath"
	"testing"

	"engram/memory"
)

// benchJournaled opens a store of n entries with a journal that holds
// every one of them and a conflict copy merged into the backups.
func benchJournaled(b *testing.B, n int) *memory.Store {
	b.Helper()
	path := benchStore(b, n)
	opts := memory.Options{MaxEntries: n + 1000, StateDir: filepath.Join(b.TempDir(), "state")}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	s, err := memory.Open(path, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	on := true
	for _, e := range s.List() {
		if _, err := s.Update(e.ID, memory.Change{Pinned: &on}); err != nil {
			b.Fatal(err)
		}
	}
	conflict := filepath.Join(filepath.Dir(path), "memory.sync-conflict-20261201-101010-ABCDEFG.json")
	if err := os.WriteFile(conflict, data, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := s.Reload(); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkRemove1k removes entries one by one from a journaled store of
// 1,000 (each Remove trashes the entry and rewrites the journal and the
// backup without it); BenchmarkUnpin1k is a plain change of the same
// store, for comparison.
func BenchmarkRemove1k(b *testing.B) {
	benchChange(b, func(s *memory.Store, id string) error { return s.Remove(id) })
}

func BenchmarkUnpin1k(b *testing.B) {
	off := false
	benchChange(b, func(s *memory.Store, id string) error {
		_, err := s.Update(id, memory.Change{Pinned: &off})
		return err
	})
}

func benchChange(b *testing.B, op func(s *memory.Store, id string) error) {
	s := benchJournaled(b, 1000)
	es := s.List()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if i == len(es) {
			b.Fatal("out of entries: run with -benchtime=Nx, N at most 1000")
		}
		if err := op(s, es[i].ID); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRemoveAll1k removes all 1,000 entries of a journaled store with
// one RemoveAll (the inspector's "select all, delete").
func BenchmarkRemoveAll1k(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := benchJournaled(b, 1000)
		var ids []string
		for _, e := range s.List() {
			ids = append(ids, e.ID)
		}
		b.StartTimer()
		if removed, err := s.RemoveAll(ids); err != nil || len(removed) != 1000 {
			b.Fatalf("removed %d, %v", len(removed), err)
		}
	}
}
