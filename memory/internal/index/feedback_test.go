package index

import (
	"slices"
	"testing"
)

// TestFirstTopEqualsAggregate checks feedback's shortcut: the best entries
// of the first pass, and their best chunks, are those that aggregating
// every chunk touched and selecting the best finds, on the benchmark
// corpus's queries.
func TestFirstTopEqualsAggregate(t *testing.T) {
	t.Parallel()
	ix := New()
	ix.PutAll(benchEntries(3000))
	g := newBenchGen(9)
	sc := &searchScratch{}
	p := &ix.params
	for range 200 {
		q, hist := g.query()
		sc.grow(len(ix.docLen), len(ix.slots), len(ix.terms))
		sc.query = foldText(q)
		sc.history = sc.history[:0]
		for _, h := range hist {
			sc.history = append(sc.history, foldText(h))
		}
		ix.buildQuery(sc)
		avgdl := float32(ix.totLen) / float32(ix.liveChunks())
		ka, kb := p.k1*(1-p.b), p.k1*p.b/avgdl
		for _, q := range sc.qterms {
			ix.accumulate(sc, q.id, q.w*q.idf*(p.k1+1), ka, kb, q.minor)
		}
		for i := range sc.groups {
			ix.accumulateGroup(sc, &sc.groups[i], ka, kb)
		}
		for _, k := range []int{1, 5, 20} {
			got := slices.Clone(ix.firstTop(sc, k))
			var gotDocs []int32
			for _, c := range got {
				gotDocs = append(gotDocs, sc.bestDoc[c.slot])
			}
			ix.aggregate(sc)
			sc.cands = sc.cands[:0]
			for _, s := range sc.slotsHit {
				sc.cands = append(sc.cands, cand{sc.best[s], s})
			}
			want := ix.selectTop(sc, k, nil, 1)
			var wantDocs []int32
			for _, c := range want {
				wantDocs = append(wantDocs, sc.bestDoc[c.slot])
			}
			if !slices.Equal(got, want) || !slices.Equal(gotDocs, wantDocs) {
				t.Fatalf("query %q, k %d: firstTop %v (chunks %v), aggregate %v (chunks %v)", q, k, got, gotDocs, want, wantDocs)
			}
			for _, s := range sc.slotsHit {
				sc.best[s] = 0
			}
			sc.slotsHit = sc.slotsHit[:0]
		}
		ix.reset(sc)
	}
}
