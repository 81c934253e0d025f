package index

import (
	"engram/memory/internal/randtext"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// benchGen draws the benchmark corpus (randtext.Corpus) as Docs.
type benchGen struct{ c *randtext.Corpus }

func newBenchGen(seed uint64) *benchGen { return &benchGen{randtext.NewCorpus(seed)} }

// entry returns the next entry of the corpus as a Doc.
func (g *benchGen) entry(now time.Time) Doc {
	e := g.c.Entry(now)
	k := testKinds[e.Kind]
	return Doc{ID: e.ID, Label: k.label, Boost: k.boost, Text: e.Text, Created: e.Created, Updated: e.Created,
		Pinned: e.Pinned}
}

func (g *benchGen) query() (string, []string) { return g.c.Query() }

var benchNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// benchEntries returns deterministic entries totalling at least chunks
// chunks.
func benchEntries(chunks int) []Doc {
	g := newBenchGen(1)
	var out []Doc
	for n := 0; n < chunks; {
		e := g.entry(benchNow)
		n += len(chunkText(e.Text))
		out = append(out, e)
	}
	return out
}

var benchIndexes sync.Map // chunks → *Index

func benchIndex(b *testing.B, chunks int) *Index {
	if ix, ok := benchIndexes.Load(chunks); ok {
		return ix.(*Index)
	}
	ix := New()
	ix.PutAll(benchEntries(chunks))
	benchIndexes.Store(chunks, ix)
	return ix
}

// BenchmarkSearch measures one auto-recall (top 5, cut-off on) over indexes
// of 10k and 100k chunks; p50-us and p95-us are per-query latencies.
func BenchmarkSearch(b *testing.B) {
	for _, chunks := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%dk", chunks/1000), func(b *testing.B) {
			ix := benchIndex(b, chunks)
			g := newBenchGen(2)
			type q struct {
				text string
				hist []string
			}
			qs := make([]q, 256)
			for i := range qs {
				qs[i].text, qs[i].hist = g.query()
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				x := qs[i%len(qs)]
				t := time.Now()
				ix.Search(x.text, x.hist, Options{K: 5})
				lat = append(lat, time.Since(t))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-us")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-us")
		})
	}
}

// BenchmarkPut measures adding one new entry to an index of 10k chunks.
// The new entries are prepared before the timer; every 1024 puts they are
// deleted again with the timer stopped, so the index stays near its size
// (10k chunks and at most 1024 more entries) however long the benchmark
// runs.
func BenchmarkPut(b *testing.B) {
	ix := New()
	for _, e := range benchEntries(10_000) {
		ix.Put(e)
	}
	g := newBenchGen(3)
	es := make([]Doc, 1024)
	for i := range es {
		es[i] = g.entry(benchNow)
		es[i].ID = fmt.Sprintf("new%d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i > 0 && i%len(es) == 0 {
			b.StopTimer()
			for _, e := range es {
				ix.Delete(e.ID)
			}
			b.StartTimer()
		}
		ix.Put(es[i%len(es)])
	}
}

// BenchmarkUpdate measures replacing the text of an indexed entry.
func BenchmarkUpdate(b *testing.B) {
	es := benchEntries(10_000)
	ix := New()
	for _, e := range es {
		ix.Put(e)
	}
	g := newBenchGen(4)
	texts := make([]string, 1024)
	for i := range texts {
		texts[i] = g.entry(benchNow).Text
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e := es[i%len(es)]
		e.Text = texts[i%len(texts)]
		ix.Put(e)
	}
}

// BenchmarkBuild measures building the index of 100k chunks from scratch
// (PutAll, as a store does when it loads); heap-MB is the memory the index
// holds once built.
func BenchmarkBuild(b *testing.B) {
	benchBuild(b, func(ix *Index, es []Doc) { ix.PutAll(es) })
}

// BenchmarkBuildPut is BenchmarkBuild with one Put per entry.
func BenchmarkBuildPut(b *testing.B) {
	benchBuild(b, func(ix *Index, es []Doc) {
		for _, e := range es {
			ix.Put(e)
		}
	})
}

func benchBuild(b *testing.B, build func(*Index, []Doc)) {
	es := benchEntries(100_000)
	b.ResetTimer()
	var heap uint64
	for range b.N {
		var before, after runtime.MemStats
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		ix := New()
		build(ix, es)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(ix)
		b.StartTimer()
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
	b.ReportMetric(float64(len(es)), "entries")
}
