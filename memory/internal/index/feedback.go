package index

import (
	"math"
	"slices"
)

// feedback expands the query with the terms that best characterise the
// top chunks of the first pass (pseudo-relevance feedback) and adds their
// contribution to the accumulators.
func (ix *Index) feedback(sc *searchScratch, ka, kb float32) {
	p := &ix.params
	top := ix.firstTop(sc, p.prfDocs)
	n := float32(ix.liveChunks())
	total := float32(0)
	for _, c := range top {
		total += c.score
	}
	sc.termsHit = sc.termsHit[:0]
	for _, c := range top {
		d := sc.bestDoc[c.slot]
		m := &ix.docMeta[d]
		share := c.score / total / float32(max(ix.docLen[d], 1))
		for _, v := range m.terms {
			t, tf := unpack(v)
			if ix.terms[t].df < 2 {
				continue // says nothing about any other chunk
			}
			if sc.termAcc[t] == 0 {
				sc.termsHit = append(sc.termsHit, t)
			}
			sc.termAcc[t] += share * tf
		}
	}
	for _, q := range sc.qterms {
		sc.termAcc[q.id] = 0
	}
	for _, id := range sc.memberIDs {
		sc.termAcc[id] = 0 // the query has it, translated
	}
	// Weigh by idf, then take the best prfTerms, best first (among equals,
	// the first met).
	exp := sc.exp[:0]
	for _, t := range sc.termsHit {
		if v := sc.termAcc[t]; v > 0 {
			df := float32(ix.terms[t].df)
			idf := float32(math.Log(1 + float64((n-df+0.5)/(df+0.5))))
			exp = append(exp, expTerm{id: t, w: v * idf, idf: idf, df: df, hash: ix.terms[t].hash})
		}
		sc.termAcc[t] = 0
	}
	sc.exp = exp
	sc.termsHit = sc.termsHit[:0]
	best := sc.expBest[:0]
	for _, e := range exp {
		k := p.prfTerms
		if len(best) == k && (k == 0 || !e.better(best[k-1])) {
			continue
		}
		i := len(best)
		for i > 0 && e.better(best[i-1]) {
			i--
		}
		best = slices.Insert(best[:min(len(best), k-1)], i, e)
	}
	sc.expBest = best
	topW := float32(0)
	for _, e := range best {
		if topW == 0 {
			topW = e.w
		}
		w := p.prfWeight * e.w / topW
		ix.accumulate(sc, e.id, w*e.idf*(p.k1+1), ka, kb, e.df > float32(p.prfMinorDF) || e.df > float32(p.minorMin) && e.df > p.commonDF*n)
	}
}

// firstTop returns the k best entries of the first pass, best first, with
// their best chunks in sc.bestDoc: those aggregate and selectTop would
// find, without aggregating every chunk touched, since a chunk scoring less
// than the worst of the k kept so far changes nothing. The result lives in
// sc.top until the next call.
func (ix *Index) firstTop(sc *searchScratch, k int) []cand {
	top := sc.top[:0]
	for _, d := range sc.touched {
		v := sc.acc[d]
		if len(top) == k && v < top[k-1].score {
			continue
		}
		s := ix.docSlot[d]
		c := cand{v, s}
		if i := slices.IndexFunc(top, func(t cand) bool { return t.slot == s }); i >= 0 {
			// an entry's best chunk: the highest score, then the first
			if v < top[i].score || v == top[i].score && d > sc.bestDoc[s] {
				continue
			}
			top = slices.Delete(top, i, i+1)
		} else if len(top) == k {
			if !ix.better(c, top[k-1]) {
				continue
			}
			top = top[:k-1]
		}
		sc.bestDoc[s] = d
		i := len(top)
		for i > 0 && ix.better(c, top[i-1]) {
			i--
		}
		top = slices.Insert(top, i, c)
	}
	sc.top = top
	return top
}

// expTerm is a candidate term of pseudo-relevance feedback.
type expTerm struct {
	id     int32
	w, idf float32
	df     float32
	hash   uint64
}

// better orders expansion terms: the heavier first, then by hash.
func (e expTerm) better(o expTerm) bool {
	return e.w > o.w || e.w == o.w && e.hash < o.hash
}

// context lets the best entries lend part of their score to their
// neighbours: the entries saved just before and after them in the same
// second (the surrounding turns of a conversation, memories distilled from
// the same exchange). An answer often sits next to the entry that matched
// the question.
func (ix *Index) context(sc *searchScratch) {
	p := &ix.params
	sc.cands = sc.cands[:0]
	for _, s := range sc.slotsHit {
		sc.cands = append(sc.cands, cand{sc.best[s], s})
	}
	top := ix.heapTop(sc, p.ctxTop, nil, 1) // in no order: each lends to its neighbours alike
	sc.ctxHit = sc.ctxHit[:0]
	for _, c := range top {
		for _, near := range ix.slots[c.slot].near {
			if near == 0 {
				continue
			}
			n := near - 1
			if sc.ctx[n] == 0 {
				sc.ctxHit = append(sc.ctxHit, n)
			}
			sc.ctx[n] = max(sc.ctx[n], c.score)
		}
	}
	for _, n := range sc.ctxHit {
		if sc.best[n] == 0 {
			sc.slotsHit = append(sc.slotsHit, n)
			sc.bestDoc[n] = ix.slots[n].docs[0]
		}
		sc.best[n] += p.ctxWeight * sc.ctx[n]
		sc.ctx[n] = 0
	}
	sc.ctxHit = sc.ctxHit[:0]
}
