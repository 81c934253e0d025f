package memory_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

// locomoStore writes a memory.json of n imported facts to a new file and
// returns its path. Each text joins two lines of the LoCoMo dialogues of
// the eval set (the second without its speaker), so the texts are real
// conversation and all differ; the benchmark is skipped without the set.
func locomoStore(b *testing.B, n int) string {
	b.Helper()
	matches, err := filepath.Glob(filepath.Join(evalDir, "locomo", "*.memories.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	for _, m := range matches {
		for _, e := range readEvalJSONL[evalMemory](b, m) {
			lines = append(lines, e.Text)
		}
	}
	if len(lines) < 2 {
		b.Skip("no LoCoMo dialogues in the eval set")
	}
	es := make([]memory.Entry, n)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range es {
		// i/len and i%len walk every pair once before any repeats.
		first, second := lines[i%len(lines)], lines[(i/len(lines)+i+1)%len(lines)]
		_, said, _ := strings.Cut(second, ": ")
		es[i] = memory.Entry{Kind: memory.KindFact, Source: memory.SourceImport,
			Text:    fmt.Sprintf("%s %s", first, said),
			Created: t0.Add(time.Duration(i) * time.Minute)}
	}
	path := filepath.Join(b.TempDir(), "memory.json")
	s, err := memory.Open(path, memory.Options{MaxEntries: 2 * n})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.AddAll(es); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOpen100kSearch opens a memory.json of 100,000 LoCoMo memories
// and searches it once, as `engramctl memory search --store F QUERY` does
// without the dense signal: the parse, the index build the first search
// pays, and the search.
func BenchmarkOpen100kSearch(b *testing.B) {
	path := locomoStore(b, 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := memory.Open(path, memory.Options{MaxEntries: 200_000})
		if err != nil {
			b.Fatal(err)
		}
		if hits := s.Search("support group counseling", 5); len(hits) == 0 {
			b.Fatal("the search found nothing")
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
