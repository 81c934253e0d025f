package index

// Recall, in order:
//
//  1. The message and the earlier user messages of the chat are tokenized
//     like the entries (package analysis). Each term weighs by how it was made
//     (a CJK unigram 0.3, a part of an identifier 0.5, others 1) and where
//     it comes from: the message 1, the history 0.6 (0.8 when the message
//     is vague, two content terms or fewer), decaying 0.95 per older
//     message. The current message thus outweighs the history but a
//     follow-up ("继续", "ok, do that") is answered from it. A CJK bigram
//     the index does not know adds 0.5 to each of its characters instead.
//     Traditional Chinese is folded to simplified first, here and when
//     indexing, so 記憶 finds 记忆.
//  2. Translation (translate.go): the Chinese words of the query and history
//     (longest match over the bilingual lexicon) and their English words
//     each add their translations as one weighted synonym group, at half
//     the word's weight.
//  3. BM25 (k1 1.2, b 0.75) over chunks, from the postings; an entry counts
//     with its best chunk.
//  4. Pseudo-relevance feedback: the ten most telling terms of the five best
//     chunks are added with weight up to 0.3 (RM3-like).
//  5. Context: the entries saved in the same second as one of the 50 best,
//     just before or after it (the turns around a matching turn, memories
//     distilled together), receive 0.3 of its score.
//  6. Boosts (pinned, recently used, Doc.Boost), the best K with duplicate
//     texts shown once, and, unless lifted, the cut-off: a hit must reach 0.3
//     of the best and either 0.15 of the query's weight or, for a specific
//     enough match, ln(1+chunks). A query matched through its translation
//     (its groups weigh more than its known terms) is measured by the
//     groups' weight, and the floor is halved like them.

import (
	"cmp"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"engram/memory/internal/analysis"
)

// Hit is one document found: its id, its score, the chunk that matched
// (index and rune offset in Doc.Text) and the words of the query (or of the
// history) it matched, so a person can see why it was found.
type Hit struct {
	ID     string
	Score  float64
	Chunk  int
	Offset int
	Terms  []string
	// Earlier are those of Terms that only the history matched, not the
	// query itself.
	Earlier []string
	// Relevant: the hit passes the relevance cut-off (set only with
	// Options.MarkCutoff).
	Relevant bool
}

// Options tunes one search.
type Options struct {
	K        int  // how many hits at most; none when K <= 0
	NoCutoff bool // lift the relevance cut-off
	// MarkCutoff lifts the cut-off but marks the hits that pass it
	// (Hit.Relevant), for a caller that ranks them further.
	MarkCutoff bool
	Now        time.Time // reference time for recency (default: the newest document's time)
	// Rerank, when set, is given the K best hits before they are explained
	// and returns the hits to explain and return instead: any of them,
	// reordered, and documents the search did not find (by ID and Chunk),
	// with the scores it chooses. It runs under the index's read lock and
	// must not call the index.
	Rerank func([]Hit) []Hit
}

// rankParams are the knobs of the ranking. The defaults were chosen on the
// development split of shared/eval (LoCoMo, MADial-Bench zh and en), keeping
// to values that are flat optima rather than peaks.
type rankParams struct {
	k1, b float32
	// classW weighs query terms by how they were produced (analysis.Class).
	classW [analysis.Lone + 1]float32
	// backoffW: a CJK bigram unknown to the index adds this weight to each
	// of its characters.
	backoffW float32
	// History: the newest earlier message weighs histW (histVague when the
	// current message has at most vagueTerms content terms), each older one
	// histDecay times the next; at most maxHistory messages are used.
	histW, histVague, histDecay float32
	vagueTerms, maxHistory      int
	// Pseudo-relevance feedback: the best prfTerms terms of the prfDocs best
	// chunks are added to the query, the best one weighing prfWeight.
	prfDocs, prfTerms int
	prfWeight         float32
	prfMinorDF        int // an expansion term in more chunks than this is minor
	// Context: each of the ctxTop best entries lends ctxWeight of its score
	// to the entries saved just before and after it (same creation second).
	ctxWeight float32
	ctxTop    int
	// Boosts, as fractions added to a score of 1.
	pinBoost, useBoost, recencyBoost float32
	halfLife                         time.Duration
	// Cut-off: a hit must reach minRel of the query's weight and relTop of
	// the best hit's score.
	minRel, relTop float32
	// absRel: a hit scoring absRel × ln(1+chunks) passes whatever the
	// query's weight (it matched something specific enough).
	absRel float32
	// Minor terms only score chunks that other terms found: of the terms in
	// more than minorMin chunks (so small indexes are searched exhaustively),
	// CJK unigrams (with minorUni), terms of the history (and of feedback)
	// in more than commonDF of the chunks, and any term in more than
	// commonAll of them.
	minorMin            int
	minorUni            bool
	commonDF, commonAll float32
	// Translation (translate.go): a source word's group of translations
	// weighs xlWeight of the word (xlUni more for a single Chinese
	// character), with at most xlMembers translations, those of at least
	// xlMinShare of the best one's weight.
	xlWeight, xlUni, xlMinShare float32
	xlMembers                   int
}

var defaultParams = rankParams{
	k1:           1.2,
	b:            0.75,
	classW:       [analysis.Lone + 1]float32{analysis.Word: 1, analysis.Whole: 1, analysis.Part: 0.5, analysis.Bi: 1, analysis.Uni: 0.3, analysis.Lone: 1},
	backoffW:     0.5,
	histW:        0.6,
	histVague:    0.8,
	histDecay:    0.95,
	vagueTerms:   2,
	maxHistory:   8,
	prfDocs:      5,
	prfTerms:     10,
	prfWeight:    0.3,
	prfMinorDF:   50,
	ctxWeight:    0.3,
	ctxTop:       50,
	pinBoost:     0.2,
	useBoost:     0.1,
	recencyBoost: 0,
	halfLife:     30 * 24 * time.Hour,
	minRel:       0.15,
	relTop:       0.3,
	absRel:       1,
	minorMin:     500,
	minorUni:     true,
	commonDF:     0.05,
	commonAll:    0.2,
	xlWeight:     0.5,
	xlUni:        0.5,
	xlMinShare:   0.2,
	xlMembers:    8,
}

// qterm is one distinct term of a search with its weight.
type qterm struct {
	id  int32
	w   float32
	idf float32
	// minor: a term too common to bring in chunks on its own, in a large
	// index (see rankParams); it adds to the chunks other terms found.
	minor   bool
	inQuery bool
	uni     bool
}

// qtok is one token of the query or history, kept to explain hits.
type qtok struct {
	id         int32
	src        int32 // 0 the query, 1 the newest history message, …
	start, end int32
}

// searchScratch holds the per-search buffers, reused through a pool.
type searchScratch struct {
	tok      analysis.Tokenizer
	acc      []float32 // by doc
	touched  []int32   // docs with acc > 0
	found    []uint64  // bit d: doc d is in touched
	postBuf  []uint32  // postings of docs found (foundPostings)
	best     []float32 // by slot
	ctx      []float32 // by slot
	ctxHit   []int32
	bestDoc  []int32 // by slot
	slotsHit []int32
	termAcc  []float32 // by term, for feedback
	qpos     []int32   // by term: its index in qterms + 1, while building
	termsHit []int32
	qterms   []qterm
	qtoks    []qtok
	cands    []cand
	top      []cand    // the best candidates, as selectTop returns them
	exp      []expTerm // feedback's expansion terms
	expBest  []expTerm // the best of them, best first
	inDoc    []uint32  // by term: the stamp of the last chunk explained that holds it
	stamp    uint32
	hitDocs  []int32  // the chunk of each hit
	hitHash  []uint64 // the text hash of each hit
	spans    []qtok   // matched pieces of the query, for explain

	// Cross-lingual groups (see translate.go) and what they are made of.
	groups    []qgroup
	members   []gmember
	memberIDs []int32
	enToks    []enTok
	gtf       []float32 // by doc: a group's weighted frequency
	gdocs     []int32   // docs with gtf > 0
	query     foldedText
	history   []foldedText
}

// enTok is an English term of the query or history, kept to translate it.
type enTok struct {
	term       string
	class      analysis.Class
	start, end int
}

type cand struct {
	score float32
	slot  int32
}

// Search ranks the indexed entries for a query, with earlier user messages of
// the same chat (oldest first) as history. It returns at most opts.K hits,
// best first, one per entry (its best chunk), and without opts.NoCutoff only
// those relevant enough to be worth showing.
func (ix *Index) Search(query string, history []string, opts Options) []Hit {
	k := opts.K
	if k <= 0 {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	live := ix.liveChunks()
	if live == 0 {
		return nil
	}
	sc, _ := ix.pool.Get().(*searchScratch)
	if sc == nil {
		sc = &searchScratch{}
	}
	defer ix.pool.Put(sc)
	sc.grow(len(ix.docLen), len(ix.slots), len(ix.terms))
	p := &ix.params

	sc.query = foldText(query)
	sc.history = sc.history[:0]
	for _, h := range history {
		sc.history = append(sc.history, foldText(h))
	}
	norm, floorW := ix.buildQuery(sc)
	if len(sc.qterms) == 0 && len(sc.groups) == 0 {
		if opts.Rerank == nil {
			return nil
		}
		return ix.rerank(sc, nil, opts.Rerank) // no word to explain them by
	}
	avgdl := float32(ix.totLen) / float32(live)
	if avgdl <= 0 {
		avgdl = 1
	}
	ka := p.k1 * (1 - p.b)
	kb := p.k1 * p.b / avgdl
	// Rarest (most telling) terms first, so that the common ones only need
	// to score the chunks already found.
	slices.SortStableFunc(sc.qterms, func(a, b qterm) int {
		return cmp.Compare(b.w*b.idf, a.w*a.idf)
	})
	for i, j := 0, 0; i < len(sc.qterms) || j < len(sc.groups); {
		if j == len(sc.groups) || i < len(sc.qterms) && sc.qterms[i].w*sc.qterms[i].idf >= sc.groups[j].w*sc.groups[j].idf {
			q := &sc.qterms[i]
			ix.accumulate(sc, q.id, q.w*q.idf*(p.k1+1), ka, kb, q.minor)
			i++
			continue
		}
		ix.accumulateGroup(sc, &sc.groups[j], ka, kb)
		j++
	}
	if p.prfDocs > 0 && p.prfTerms > 0 && len(sc.touched) > 0 {
		ix.feedback(sc, ka, kb)
	}
	ix.aggregate(sc)
	if p.ctxWeight > 0 {
		ix.context(sc)
	}

	// Boosts, then the best k (a few more, to drop duplicate texts).
	ref := opts.Now
	if ref.IsZero() {
		ref = ix.newest
	}
	sc.cands = sc.cands[:0]
	for _, s := range sc.slotsHit {
		sc.cands = append(sc.cands, cand{sc.best[s], s})
	}
	rescore := func(c cand) float32 { return c.score * ix.boost(&ix.slots[c.slot].e, ref) }
	want := k + k/2 + 4
	ranked := ix.selectTop(sc, want, rescore, ix.maxBoost())
	cut := float32(0)
	if (!opts.NoCutoff || opts.MarkCutoff) && len(ranked) > 0 {
		floor := floorW * p.absRel * float32(math.Log1p(float64(live)))
		cut = max(min(p.minRel*norm, floor), p.relTop*ranked[0].score)
	}
	mark := cut
	if opts.MarkCutoff {
		cut = 0
	}
	hits := ix.distinct(sc, ranked, k, cut)
	if len(hits) < k && len(ranked) == want && ranked[want-1].score >= cut && len(sc.cands) > want {
		// Too many duplicates among the best: rank everything.
		ranked = ix.selectTop(sc, len(sc.cands), rescore, ix.maxBoost())
		hits = ix.distinct(sc, ranked, k, cut)
	}
	if opts.MarkCutoff {
		for i := range hits {
			hits[i].Relevant = hits[i].Score >= float64(mark)
		}
	}
	if opts.Rerank != nil {
		hits = ix.rerank(sc, hits, opts.Rerank)
	}
	var terms []string // the Terms of all hits, one after another
	for i := range hits {
		if sc.hitDocs[i] < 0 {
			continue
		}
		start := len(terms)
		terms, hits[i].Earlier = ix.explain(sc, terms, sc.hitDocs[i])
		if n := len(terms); n > start {
			hits[i].Terms = terms[start:n:n]
		}
	}
	ix.reset(sc)
	return hits
}

func (sc *searchScratch) grow(docs, slots, terms int) {
	if len(sc.acc) < docs {
		sc.acc = make([]float32, docs+docs/4)
		sc.gtf = make([]float32, docs+docs/4)
		sc.found = make([]uint64, (docs+docs/4)/64+1)
	}
	if len(sc.best) < slots {
		sc.best = make([]float32, slots+slots/4)
		sc.bestDoc = make([]int32, slots+slots/4)
		sc.ctx = make([]float32, slots+slots/4)
	}
	if len(sc.termAcc) < terms {
		sc.termAcc = make([]float32, terms+terms/4)
		sc.qpos = make([]int32, terms+terms/4)
		sc.inDoc = make([]uint32, terms+terms/4)
		sc.stamp = 0
	}
}

// reset clears what the search left in the scratch buffers.
func (ix *Index) reset(sc *searchScratch) {
	for _, d := range sc.touched {
		sc.acc[d] = 0
		sc.found[d/64] = 0
	}
	for _, s := range sc.slotsHit {
		sc.best[s] = 0
	}
	sc.touched = sc.touched[:0]
	sc.slotsHit = sc.slotsHit[:0]
}

// buildQuery tokenizes the query and history (sc.query, sc.history) into
// weighted distinct terms (sc.qterms) and translation groups (sc.groups).
// It returns the query's total weight, the sum of weight × idf over its
// terms, known to the index or not, and the factor of the cut-off's floor
// for a specific match, 1. When the groups weigh more than the terms the
// index knows, the query is matched through its translation: the weight is
// then that of the groups and the floor is scaled like them, by xlWeight.
func (ix *Index) buildQuery(sc *searchScratch) (float32, float32) {
	p := &ix.params
	sc.qterms = sc.qterms[:0]
	sc.qtoks = sc.qtoks[:0]
	sc.groups = sc.groups[:0]
	sc.members = sc.members[:0]
	sc.memberIDs = sc.memberIDs[:0]
	n := float32(ix.liveChunks())
	unknownIDF := float32(math.Log(1 + (float64(n)+0.5)/0.5))
	norm := float32(0)
	content := 0
	var unknown termSet
	addTerm := func(id int32, w float32, src int32, start, end int, uni bool) {
		sc.qtoks = append(sc.qtoks, qtok{id, src, int32(start), int32(end)})
		if i := sc.qpos[id]; i > 0 {
			q := &sc.qterms[i-1]
			q.w += w
			q.inQuery = q.inQuery || src == 0
			return
		}
		sc.qterms = append(sc.qterms, qterm{id: id, w: w, inQuery: src == 0, uni: uni})
		sc.qpos[id] = int32(len(sc.qterms))
	}
	add := func(src int32, text string, scale float32) {
		sc.enToks = sc.enToks[:0]
		sc.tok.Each(text, func(term []byte, class analysis.Class, start, end int) {
			if src == 0 && class != analysis.Uni && class != analysis.Part {
				content++
			}
			if class == analysis.Word || class == analysis.Part {
				sc.enToks = append(sc.enToks, enTok{string(term), class, start, end})
			}
			w := p.classW[class] * scale
			id, ok := ix.lookup(term, class)
			if !ok || ix.terms[id].df == 0 {
				if unknown.add(term) {
					norm += w * unknownIDF
				}
				if class == analysis.Bi && p.backoffW > 0 {
					// an unknown CJK bigram: its characters are the evidence left
					r1, n1 := utf8.DecodeRune(term)
					r2, _ := utf8.DecodeRune(term[n1:])
					for i, r := range [2]rune{r1, r2} {
						if uid, ok := ix.cjk.get(uint64(r) << 32); ok && ix.terms[uid].df > 0 {
							addTerm(uid, p.backoffW*scale, src, start+i*n1, start+i*n1+utf8.RuneLen(r), true)
						}
					}
				}
				return
			}
			addTerm(id, w, src, start, end, class == analysis.Uni)
		})
		if p.xlWeight > 0 {
			ix.translate(sc, text, src, scale)
		}
	}
	add(0, sc.query.text, 1)
	hw := p.histW
	if content <= p.vagueTerms {
		hw = p.histVague
	}
	history := sc.history
	for i := len(history) - 1; i >= max(0, len(history)-p.maxHistory); i-- {
		add(int32(len(history)-i), history[i].text, hw)
		hw *= p.histDecay
	}
	known := float32(0)
	for i := range sc.qterms {
		q := &sc.qterms[i]
		sc.qpos[q.id] = 0
		df := float32(ix.terms[q.id].df)
		q.idf = float32(math.Log(1 + float64((n-df+0.5)/(df+0.5))))
		known += q.w * q.idf
		common := df > p.commonDF*n
		q.minor = df > float32(p.minorMin) &&
			(q.uni && p.minorUni || common && !q.inQuery || df > p.commonAll*n)
	}
	if xl := ix.finishGroups(sc); xl > known {
		return xl, p.xlWeight
	}
	return norm + known, 1
}

// termSet is a set of terms, a list while it is small (most queries) and
// a map beyond.
type termSet struct {
	few  []string
	many map[string]bool
}

// add adds a term and reports whether it was new.
func (ts *termSet) add(term []byte) bool {
	if ts.many == nil && len(ts.few) < 32 {
		if slices.Contains(ts.few, string(term)) {
			return false
		}
		ts.few = append(ts.few, string(term))
		return true
	}
	if ts.many == nil {
		ts.many = make(map[string]bool, 2*len(ts.few))
		for _, t := range ts.few {
			ts.many[t] = true
		}
	}
	if ts.many[string(term)] {
		return false
	}
	ts.many[string(term)] = true
	return true
}

// accumulate adds one term's BM25 contribution, weight × tf·(k1+1) /
// (tf + k1·(1-b+b·len/avgdl)), to every live chunk holding it.
//
// A minor term (see qterm) found after others only adds to the chunks those
// found: on its own it says too little to bring in a chunk, and skipping
// the rest keeps a search fast whatever the query. It then looks itself up
// in those chunks when that is cheaper than walking its postings.
func (ix *Index) accumulate(sc *searchScratch, id int32, weight, ka, kb float32, minor bool) {
	t := &ix.terms[id]
	acc, docLen := sc.acc, ix.docLen
	if minor && len(sc.touched) > 0 {
		if len(sc.touched)*8 < len(t.post) {
			for _, d := range sc.touched {
				if tf := ix.docMeta[d].tfOf(id); tf > 0 {
					acc[d] += weight * tf / (tf + ka + kb*float32(docLen[d]))
				}
			}
			return
		}
		for _, v := range sc.foundPostings(t.post) {
			d, tf := unpack(v)
			acc[d] += weight * tf / (tf + ka + kb*float32(docLen[d]))
		}
		return
	}
	for _, v := range t.post {
		d, tf := unpack(v)
		l := docLen[d]
		if l < 0 {
			continue
		}
		if acc[d] == 0 {
			sc.touch(d)
		}
		acc[d] += weight * tf / (tf + ka + kb*float32(l))
	}
}

// touch adds doc d to the docs found (sc.touched).
func (sc *searchScratch) touch(d int32) {
	sc.touched = append(sc.touched, d)
	sc.found[d/64] |= 1 << (d % 64)
}

// isFound reports whether doc d is in sc.touched: a bitmap small enough to
// stay in the cache, unlike sc.acc, for the minor terms that walk long
// postings to find the few docs found already.
func (sc *searchScratch) isFound(d int32) bool { return sc.found[d/64]&(1<<(d%64)) != 0 }

// foundPostings returns the postings of post whose docs are found, in
// order, in a buffer reused by the next call. It copies every posting and
// counts those found, without a branch: whether a doc was found is a coin
// toss the processor would often guess wrong.
func (sc *searchScratch) foundPostings(post []uint32) []uint32 {
	buf := slices.Grow(sc.postBuf[:0], len(post))[:len(post)]
	n := 0
	for _, v := range post {
		d := v >> tfBits
		buf[n] = v
		n += int(sc.found[d/64] >> (d % 64) & 1)
	}
	sc.postBuf = buf
	return buf[:n]
}

// aggregate keeps, for every entry touched, its best chunk and score.
func (ix *Index) aggregate(sc *searchScratch) {
	for _, s := range sc.slotsHit {
		sc.best[s] = 0
	}
	sc.slotsHit = sc.slotsHit[:0]
	for _, d := range sc.touched {
		s := ix.docSlot[d]
		v := sc.acc[d]
		switch {
		case sc.best[s] == 0:
			sc.slotsHit = append(sc.slotsHit, s)
			sc.best[s], sc.bestDoc[s] = v, d
		case v > sc.best[s] || v == sc.best[s] && d < sc.bestDoc[s]:
			sc.best[s], sc.bestDoc[s] = v, d
		}
	}
}
