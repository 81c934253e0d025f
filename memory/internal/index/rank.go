package index

import (
	"math"
	"slices"
	"strings"
	"time"
)

// boost is the factor an entry's score is multiplied by for being pinned,
// used and recent, plus its Doc.Boost.
func (ix *Index) boost(e *Doc, ref time.Time) float32 {
	p := &ix.params
	f := float32(1)
	if e.Pinned {
		f += p.pinBoost
	}
	if e.Uses > 0 && !e.LastUsed.IsZero() {
		usage := float32(math.Min(1, math.Log1p(float64(e.Uses))/math.Log(11)))
		f += p.useBoost * usage * decay(ref.Sub(e.LastUsed), p.halfLife)
	}
	if p.recencyBoost > 0 {
		f += p.recencyBoost * decay(ref.Sub(entryTime(*e)), p.halfLife)
	}
	f += e.Boost
	return f
}

// maxBoost is the largest factor boost can give.
func (ix *Index) maxBoost() float32 {
	p := &ix.params
	return 1 + p.pinBoost + p.useBoost + p.recencyBoost + ix.topBoost
}

// decay is 1 for an age of zero (or less), halving every halfLife.
func decay(age, halfLife time.Duration) float32 {
	if age <= 0 {
		return 1
	}
	return float32(math.Exp2(-float64(age) / float64(halfLife)))
}

// better orders candidates: higher score first, then entry id.
func (ix *Index) better(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return ix.slots[a.slot].e.ID < ix.slots[b.slot].e.ID
}

// selectTop returns the best k of sc.cands, best first (sc.cands is left as
// it was). The result lives in sc.top until the next call.
//
// With rescore, a candidate's score is replaced by rescore(c), which must be
// at most c.score × bound; it is computed only for the candidates that may
// still enter the best k.
func (ix *Index) selectTop(sc *searchScratch, k int, rescore func(cand) float32, bound float32) []cand {
	h := ix.heapTop(sc, k, rescore, bound)
	// Sort by taking the worst off the heap, to the end, until one is left.
	// The order is total (entry ids are unique), so this is the order of
	// any sort.
	for n := len(h) - 1; n > 0; n-- {
		h[0], h[n] = h[n], h[0]
		ix.siftDown(h[:n])
	}
	return h
}

// heapTop is selectTop without the sorting: the best k as a min-heap, the
// worst of them first.
func (ix *Index) heapTop(sc *searchScratch, k int, rescore func(cand) float32, bound float32) []cand {
	h := sc.top[:0] // min-heap: the worst kept candidate at h[0]
	for _, c := range sc.cands {
		if rescore != nil {
			if len(h) == k && c.score*bound < h[0].score {
				continue
			}
			c.score = rescore(c)
		}
		if len(h) < k {
			h = append(h, c)
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if !ix.better(h[parent], h[i]) {
					break
				}
				h[parent], h[i] = h[i], h[parent]
				i = parent
			}
			continue
		}
		if !ix.better(c, h[0]) {
			continue
		}
		h[0] = c
		ix.siftDown(h)
	}
	sc.top = h
	return h
}

// siftDown restores the min-heap h (the worst candidate at h[0]) after
// h[0] was replaced.
func (ix *Index) siftDown(h []cand) {
	for i := 0; ; {
		l, r, worst := 2*i+1, 2*i+2, i
		if l < len(h) && ix.better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && ix.better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// distinct turns the ranked candidates that score at least cut into at most
// k hits, leaving out an entry whose text is the same as that of a better one
// (the same memory saved twice is shown once).
func (ix *Index) distinct(sc *searchScratch, ranked []cand, k int, cut float32) []Hit {
	hits := make([]Hit, 0, min(k, len(ranked)))
	sc.hitDocs = sc.hitDocs[:0]
	sc.hitHash = sc.hitHash[:0]
	for _, c := range ranked {
		if len(hits) == k || c.score < cut || c.score <= 0 {
			break
		}
		e := &ix.slots[c.slot]
		dup := false
		for i, h := range sc.hitHash {
			if h == e.hash && ix.slots[ix.docSlot[sc.hitDocs[i]]].e.Text == e.e.Text {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		d := sc.bestDoc[c.slot]
		m := &ix.docMeta[d]
		hits = append(hits, Hit{
			ID:     e.e.ID,
			Score:  float64(c.score),
			Chunk:  int(m.chunk),
			Offset: int(m.offset),
		})
		sc.hitDocs = append(sc.hitDocs, d)
		sc.hitHash = append(sc.hitHash, e.hash)
	}
	return hits
}

// explain appends to terms the words of the query and history that a hit's
// chunk (doc) matched, once each, merging overlapping pieces (CJK bigrams,
// parts of an identifier) back into the words people typed, and the
// translations it matched ("花生 → peanuts"). It also returns those of
// them that only the history matched (nil when none).
func (ix *Index) explain(sc *searchScratch, terms []string, doc int32) ([]string, []string) {
	sc.stamp++
	if sc.stamp == 0 {
		clear(sc.inDoc)
		sc.stamp = 1
	}
	for _, v := range ix.docMeta[doc].terms {
		sc.inDoc[v>>tfBits] = sc.stamp
	}
	spans := sc.spans[:0]
	for _, t := range sc.qtoks {
		if sc.inDoc[t.id] != sc.stamp {
			continue
		}
		if n := len(spans); n > 0 && spans[n-1].src == t.src && t.start <= spans[n-1].end {
			spans[n-1].end = max(spans[n-1].end, t.end)
			continue
		}
		spans = append(spans, qtok{src: t.src, start: t.start, end: t.end})
	}
	sc.spans = spans
	start := len(terms)
	var earlier []string
	add := func(w string, src int32) {
		same := func(x string) bool { return strings.EqualFold(x, w) }
		switch {
		case !slices.ContainsFunc(terms[start:], same):
			terms = append(terms, w)
			if src > 0 {
				earlier = append(earlier, w)
			}
		case src == 0:
			earlier = slices.DeleteFunc(earlier, same)
		}
	}
	for _, s := range spans {
		add(sc.source(s.src).span(s.start, s.end), s.src)
	}
	// Translations: the word as typed, and what it matched.
	m := &ix.docMeta[doc]
	for i := range sc.groups {
		g := &sc.groups[i]
		t := sc.groupMatch(g)
		if t == nil {
			continue
		}
		to := t.text
		if g.fromChinese {
			to = sc.surface(ix.slots[ix.docSlot[doc]].e.Text[m.start:m.end], t.text)
		}
		add(sc.source(g.src).span(g.start, g.end)+" → "+to, g.src)
	}
	if len(earlier) == 0 {
		earlier = nil
	}
	return terms, earlier
}

// source is the text a query token comes from (src as in qtok).
func (sc *searchScratch) source(src int32) *foldedText {
	if src == 0 {
		return &sc.query
	}
	return &sc.history[len(sc.history)-int(src)]
}

// rerank replaces the hits with what fn makes of them and points
// sc.hitDocs at their chunks (-1 for a document the index lacks), setting
// their offsets.
func (ix *Index) rerank(sc *searchScratch, hits []Hit, fn func([]Hit) []Hit) []Hit {
	hits = fn(hits)
	sc.hitDocs = sc.hitDocs[:0]
	for i := range hits {
		h := &hits[i]
		d := int32(-1)
		if slot, ok := ix.byID[h.ID]; ok {
			for _, c := range ix.slots[slot].docs {
				if int(ix.docMeta[c].chunk) == h.Chunk {
					d = c
					break
				}
			}
		}
		if d >= 0 {
			h.Offset = int(ix.docMeta[d].offset)
		}
		h.Terms, h.Earlier = nil, nil
		sc.hitDocs = append(sc.hitDocs, d)
	}
	return hits
}
