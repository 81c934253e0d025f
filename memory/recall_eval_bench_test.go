package memory_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"engram/memory"
)

// evalDir is the development split of the recall evaluation (see
// shared/eval/README.md), next to the repository.
const evalDir = "../../shared/eval"

type evalMemory struct {
	ID      string    `json:"id"`
	Text    string    `json:"text"`
	Created time.Time `json:"created"`
}

type evalQuery struct {
	Query   string   `json:"query"`
	History []string `json:"history"`
}

// readEvalJSONL decodes a file of JSON lines of the eval set, skipping the
// benchmark when the set is not there.
func readEvalJSONL[T any](b *testing.B, path string) []T {
	b.Helper()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		b.Skipf("no eval set: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// evalStore loads memories as `engramctl bench-recall` does: imported facts
// with IDs in input order, into a fresh in-memory store with embedder emb
// (nil: words only), and builds its index with a first recall and waits for
// its vectors.
func evalStore(b *testing.B, mems []evalMemory, emb memory.Embedder) *memory.Store {
	es := make([]memory.Entry, len(mems))
	for i, m := range mems {
		es[i] = memory.Entry{ID: fmt.Sprintf("m%07d", i), Kind: memory.KindFact, Text: m.Text,
			Source: memory.SourceImport, Created: m.Created, Updated: m.Created}
	}
	s := memory.NewInMemory(memory.Options{MaxEntries: max(len(es), 1), Embedder: emb})
	if _, err := s.AddAll(es); err != nil {
		b.Fatal(err)
	}
	s.Recall("", nil, memory.RecallOptions{})
	if err := s.WaitSemantic(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkRecallEvalSet measures what `engramctl bench-recall --k 50` does
// on the first LoCoMo conversation of the eval set: build loads the
// memories into a store and builds its index; query is one recall of the
// set's queries, in turn (p50-us is the per-query median), fused with the
// built-in embedder; query-words is the same by words only (--dense none).
func BenchmarkRecallEvalSet(b *testing.B) {
	base := filepath.Join(evalDir, "locomo", "conv-26")
	mems := readEvalJSONL[evalMemory](b, base+".memories.jsonl")
	queries := readEvalJSONL[evalQuery](b, base+".queries.jsonl")
	if len(mems) == 0 || len(queries) == 0 {
		b.Skip("empty eval set")
	}
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			evalStore(b, mems, memory.Builtin())
		}
	})
	query := func(emb memory.Embedder) func(b *testing.B) {
		return func(b *testing.B) {
			s := evalStore(b, mems, emb)
			opts := memory.RecallOptions{K: 50, NoCutoff: true}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				q := queries[i%len(queries)]
				t := time.Now()
				s.Recall(q.Query, q.History, opts)
				lat = append(lat, time.Since(t))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/float64(time.Microsecond), "p50-us")
		}
	}
	b.Run("query", query(memory.Builtin()))
	b.Run("query-words", query(nil))
}
