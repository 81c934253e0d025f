package memory_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/memory"
	"engram/memory/internal/index"
	"engram/memory/internal/randtext"
)

var recallBenchNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// recallBenchEntries returns the benchmark corpus (the index's, see
// randtext.Corpus) as entries totalling at least chunks chunks.
func recallBenchEntries(chunks int) []memory.Entry {
	c := randtext.NewCorpus(1)
	var out []memory.Entry
	for n := 0; n < chunks; {
		e := c.Entry(recallBenchNow)
		n += len(index.Chunks(e.Text))
		out = append(out, memory.Entry{ID: e.ID, Kind: memory.Kinds[e.Kind], Text: e.Text, Pinned: e.Pinned,
			Source: memory.SourceImport, Created: e.Created, Updated: e.Created})
	}
	return out
}

// recallBenchIndex is an index of the corpus at a size, with or without
// the built-in embedder (its vectors ready), the heap it holds and the
// share of that the vectors hold.
type recallBenchIndex struct {
	ix         *memory.EntryIndex
	heap, vecs uint64
}

var recallBenchIndexes sync.Map // "chunks/dense" → *recallBenchIndex

func benchEntryIndex(b *testing.B, chunks int, dense bool) *recallBenchIndex {
	key := fmt.Sprint(chunks, dense)
	if v, ok := recallBenchIndexes.Load(key); ok {
		return v.(*recallBenchIndex)
	}
	es := recallBenchEntries(chunks)
	before := heapInUse()
	ix := memory.NewEntryIndex()
	ix.PutAll(es)
	lexical := heapInUse()
	if dense {
		ix.SetEmbedder(memory.Builtin())
		if err := ix.WaitSemantic(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	after := heapInUse()
	r := &recallBenchIndex{ix: ix, heap: after - before}
	if dense && after > lexical {
		r.vecs = after - lexical
	}
	recallBenchIndexes.Store(key, r)
	return r
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkRecall measures one auto-recall (top 5, cut-off on) over the
// index's benchmark corpus of 10k and 100k chunks, with words only
// (dense=none) and fused with the built-in embedder (dense=builtin): p50-us
// and p95-us are per-query latencies, heap-MB what the index holds,
// vectors-MB the share of it the dense signal holds (its vectors).
func BenchmarkRecall(b *testing.B) {
	for _, chunks := range []int{10_000, 100_000} {
		for _, dense := range []bool{false, true} {
			name := map[bool]string{false: "none", true: "builtin"}[dense]
			b.Run(fmt.Sprintf("chunks=%dk/dense=%s", chunks/1000, name), func(b *testing.B) {
				r := benchEntryIndex(b, chunks, dense)
				c := randtext.NewCorpus(2)
				type q struct {
					text string
					hist []string
				}
				qs := make([]q, 256)
				for i := range qs {
					qs[i].text, qs[i].hist = c.Query()
				}
				lat := make([]time.Duration, 0, b.N)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					x := qs[i%len(qs)]
					t := time.Now()
					r.ix.Search(x.text, x.hist, memory.RecallOptions{K: 5})
					lat = append(lat, time.Since(t))
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-us")
				b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-us")
				b.ReportMetric(float64(r.heap)/(1<<20), "heap-MB")
				if dense {
					b.ReportMetric(float64(r.vecs)/(1<<20), "vectors-MB")
				}
			})
		}
	}
}
