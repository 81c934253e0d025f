package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"engram/memory/internal/dense"
	"engram/memory/internal/index"
)

// semantic is the dense side of an EntryIndex: the embedder, the vectors of
// the entries' chunks, and the entries waiting for theirs. It is guarded by
// the index's lock; the worker computes vectors outside it.
type semantic struct {
	emb     Embedder
	set     *dense.Set
	ready   bool                // the first pass finished: searches fuse
	stale   map[string]struct{} // entries whose vectors are to be computed
	running bool                // a worker is computing
	taken   int                 // entries of the batch the worker is computing
	done    chan struct{}       // closed when the running worker finds nothing left
	err     error               // why the embedder failed; recall stays lexical
	recent  textCache           // vectors of recent messages, which come back as history
}

// textCache keeps the vectors of the last few messages embedded: a chat's
// history is the messages before, so each turn embeds one new text. It is
// safe for concurrent use.
type textCache struct {
	mu   sync.Mutex
	vecs map[string][]float32
}

// recentTexts bounds the cache: more than a chat's history (maxQueryHistory
// messages) for several chats at once.
const recentTexts = 64

func (c *textCache) get(text string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.vecs[text]
	return v, ok
}

func (c *textCache) put(text string, v []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vecs == nil || len(c.vecs) >= recentTexts {
		c.vecs = make(map[string][]float32, recentTexts)
	}
	c.vecs[text] = v
}

// embedBatch is how many entries the worker embeds between two turns of
// the index's lock.
const embedBatch = 256

// SetEmbedder makes the index fuse a dense signal from emb with BM25 (see
// Search), or, with nil, search lexically only. The vectors of the indexed
// entries are computed in the background; until they are all there,
// searches are lexical. Entries put later are embedded in the background
// too, and searched lexically until they are.
func (x *EntryIndex) SetEmbedder(emb Embedder) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if emb == nil {
		x.sem = nil
		return
	}
	if x.sem != nil && x.sem.emb.Model() == emb.Model() && x.sem.emb.Dim() == emb.Dim() {
		x.sem.emb = emb
		return
	}
	x.sem = &semantic{emb: emb, set: dense.NewSet(emb.Dim()), stale: make(map[string]struct{}, len(x.entries))}
	for id := range x.entries {
		x.sem.stale[id] = struct{}{}
	}
	x.kickLocked()
}

// WaitSemantic waits until every indexed entry has its vectors (or the
// embedder failed, whose error it returns), or ctx ends. Without an
// embedder it returns at once.
func (x *EntryIndex) WaitSemantic(ctx context.Context) error {
	for {
		x.mu.RLock()
		sem := x.sem
		if sem == nil || sem.err != nil || !sem.running && len(sem.stale) == 0 {
			x.mu.RUnlock()
			if sem == nil {
				return nil
			}
			return sem.err
		}
		done := sem.done
		x.mu.RUnlock()
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("wait for semantic recall: %w", ctx.Err())
		}
	}
}

// SemanticProgress reports how many of the indexed entries have their
// vectors (done) of how many there are (total) while the background
// computes them; done == total when nothing is computed (no embedder, all
// done, or the embedder failed). It only counts, under the read lock, so it
// may be called often and from any goroutine.
func (x *EntryIndex) SemanticProgress() (done, total int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	total = len(x.entries)
	sem := x.sem
	if sem == nil || sem.err != nil {
		return total, total
	}
	return max(0, total-len(sem.stale)-sem.taken), total
}

// semanticPut notes that entry e was put, old being the version indexed
// before (ok false: none). A new text drops the entry's vectors until the
// worker has computed the new ones.
func (x *EntryIndex) semanticPut(e Entry, old Entry, ok bool) {
	sem := x.sem
	if sem == nil || sem.err != nil || ok && old.Text == e.Text {
		return
	}
	sem.set.Delete(e.ID)
	sem.stale[e.ID] = struct{}{}
	x.kickLocked()
}

// semanticDelete drops the vectors of entry id.
func (x *EntryIndex) semanticDelete(id string) {
	if sem := x.sem; sem != nil {
		sem.set.Delete(id)
		delete(sem.stale, id)
	}
}

// kickLocked starts the worker if entries wait and none runs.
func (x *EntryIndex) kickLocked() {
	sem := x.sem
	if sem.running || len(sem.stale) == 0 || sem.err != nil {
		return
	}
	sem.running = true
	sem.done = make(chan struct{})
	go x.embedAll(sem)
}

// pending is one entry the worker embeds: its text as it was taken.
type pending struct {
	id, text string
}

// embedAll computes the vectors of the stale entries, a batch at a time,
// until none is left, then lets searches fuse.
func (x *EntryIndex) embedAll(sem *semantic) {
	for {
		x.mu.Lock()
		batch := make([]pending, 0, min(embedBatch, len(sem.stale)))
		for id := range sem.stale {
			if len(batch) == embedBatch {
				break
			}
			delete(sem.stale, id)
			if e, ok := x.entries[id]; ok {
				batch = append(batch, pending{id, e.Text})
			}
		}
		sem.taken = len(batch)
		if len(batch) == 0 {
			sem.set.Refresh()
			sem.ready = true
			sem.running = false
			close(sem.done)
			x.mu.Unlock()
			return
		}
		emb := sem.emb // SetEmbedder may swap in an equal one meanwhile
		x.mu.Unlock()
		vecs, err := embedChunks(emb, batch)
		x.mu.Lock()
		sem.taken = 0
		if err != nil {
			sem.err = fmt.Errorf("semantic recall with %s: %w", emb.Model(), err)
			sem.running = false
			close(sem.done)
			x.mu.Unlock()
			return
		}
		for i, p := range batch {
			_, again := sem.stale[p.id]
			if e, ok := x.entries[p.id]; ok && !again && e.Text == p.text {
				sem.set.Put(p.id, vecs[i])
			}
		}
		x.mu.Unlock()
	}
}

// embedChunks embeds the chunks of each entry's text, as the index cuts
// them, in one call of the embedder.
func embedChunks(emb Embedder, batch []pending) ([][][]float32, error) {
	var texts []string
	counts := make([]int, len(batch))
	for i, p := range batch {
		for _, c := range index.Chunks(p.text) {
			texts = append(texts, p.text[c.Start:c.End])
			counts[i]++
		}
	}
	flat, err := emb.Embed(texts)
	if err != nil {
		return nil, err
	}
	if len(flat) != len(texts) {
		return nil, fmt.Errorf("%d vectors for %d texts", len(flat), len(texts))
	}
	out := make([][][]float32, len(batch))
	for i, n := range counts {
		out[i], flat = flat[:n:n], flat[n:]
	}
	return out, nil
}

// Fusion defaults. Each signal brings its best fuseCandidates entries
// (fifty: ten times what a reply shows, as many as the recall eval scores;
// more would cost the words' search more than the rest of the fusion);
// BM25 scores are divided by the query's best, cosines min-max scaled over
// the candidates, and the sum ranks them. The dense signal is
// weaker than BM25 on its own, so it weighs half: it reorders and fills in
// what the words missed, and never outvotes a strong match of the words.
const (
	DefaultSemanticWeight = 0.5
	fuseCandidates        = 50
	// historyWeight: the query vector is the message's plus this share of
	// the mean of the earlier messages' vectors. A turn means what the
	// conversation around it means, so the two count alike: "how should I
	// celebrate?" is about the test the user aced two messages ago.
	historyWeight = 1
	// meaningMinCos: with the cut-off, a hit the words did not find is
	// kept when its cosine to the query (both less the store's mean)
	// reaches this, half way from unrelated to the same.
	meaningMinCos = 0.5
)

// queryVector is the vector of a query with its history (the newest
// maxQueryHistory earlier messages); nil when none of them has a vector.
func (sem *semantic) queryVector(query string, history []string) []float32 {
	history = history[max(0, len(history)-maxQueryHistory):]
	texts := append([]string{query}, history...)
	vecs := make([][]float32, len(texts))
	var missing []string
	var at []int // the index in texts of each missing one
	for i, t := range texts {
		if v, ok := sem.recent.get(t); ok {
			vecs[i] = v
		} else {
			missing, at = append(missing, t), append(at, i)
		}
	}
	if len(missing) > 0 {
		got, err := sem.emb.Embed(missing)
		if err != nil || len(got) != len(missing) {
			return nil
		}
		for j, i := range at {
			vecs[i] = got[j]
			sem.recent.put(texts[i], got[j])
		}
	}
	dim := sem.set.Dim()
	q := make([]float32, dim)
	has := false
	if len(vecs[0]) == dim {
		copy(q, vecs[0])
		has = true
	}
	n := 0
	for _, v := range vecs[1:] {
		if len(v) == dim {
			n++
		}
	}
	for _, v := range vecs[1:] {
		if len(v) != dim {
			continue
		}
		for d, x := range v {
			q[d] += historyWeight * x / float32(n)
		}
		has = true
	}
	if !has {
		return nil
	}
	return q
}

// maxQueryHistory is how many earlier messages the query vector takes.
const maxQueryHistory = 8

// fuseCand is one candidate of a fused search, small so that ranking
// them moves little.
type fuseCand struct {
	id      string
	score   float64
	lexRank int32 // index in the lexical hits, -1 when the words did not find it
	chunk   int32 // the chunk nearest the query (the lexical one without a vector)
	cos     float32
	hasCos  bool
}

// fused ranks the candidates of both signals by the sum of the BM25 score
// divided by the best and w × the cosine min-max scaled over the
// candidates. Without opts.NoCutoff it keeps the hits that pass the
// lexical cut-off and those whose cosine reaches meaningMinCos. The index
// explains the hits it returns (fusion runs inside its search, see
// index.Options.Rerank), so the words a hit matched are shown whichever
// signal brought it.
func (x *EntryIndex) fused(sem *semantic, query string, history []string, k int, opts RecallOptions, w float64) []Hit {
	iopts := index.Options{K: k, NoCutoff: opts.NoCutoff, Now: opts.Now}
	qv := sem.queryVector(query, history)
	meaning := map[string]float64{}
	if qv != nil {
		q := sem.set.Prepare(qv)
		iopts.K = max(k, fuseCandidates)
		iopts.MarkCutoff = !opts.NoCutoff
		iopts.Rerank = func(found []index.Hit) []index.Hit {
			return x.fuse(q, found, k, w, !opts.NoCutoff, meaning)
		}
	}
	found := x.ix.Search(query, history, iopts)
	if len(found) == 0 {
		return nil
	}
	hits := make([]Hit, len(found))
	for i, h := range found {
		hits[i] = Hit{Entry: x.entries[h.ID], Score: h.Score, Chunk: h.Chunk, Offset: h.Offset, Terms: h.Terms,
			Earlier: h.Earlier, Meaning: meaning[h.ID]}
	}
	return hits
}

// fuse is the fusion of fused: the lexical candidates found and the dense
// ones of q, at most k of them, recording in meaning the cosine of each hit
// the dense signal brought.
func (x *EntryIndex) fuse(q *dense.Query, found []index.Hit, k int, w float64, cut bool, meaning map[string]float64) []index.Hit {
	top := q.Top(fuseCandidates)
	cands := make([]fuseCand, 0, len(found)+len(top))
	at := make(map[string]struct{}, len(found)+len(top))
	for i, h := range found {
		c := fuseCand{id: h.ID, lexRank: int32(i), chunk: int32(h.Chunk)}
		if m, ok := q.Best(h.ID); ok {
			c.cos, c.hasCos, c.chunk = m.Cos, true, int32(m.Chunk)
		}
		at[h.ID] = struct{}{}
		cands = append(cands, c)
	}
	for _, m := range top {
		if _, ok := at[m.ID]; ok {
			continue
		}
		at[m.ID] = struct{}{}
		cands = append(cands, fuseCand{id: m.ID, lexRank: -1, cos: m.Cos, hasCos: true, chunk: int32(m.Chunk)})
	}
	lo, hi := float32(1), float32(-1)
	for _, c := range cands {
		if c.hasCos {
			lo, hi = min(lo, c.cos), max(hi, c.cos)
		}
	}
	best := 0.0
	if len(found) > 0 {
		best = found[0].Score
	}
	for i := range cands {
		c := &cands[i]
		if best > 0 && c.lexRank >= 0 {
			c.score = found[c.lexRank].Score / best
		}
		if c.hasCos && hi > lo {
			c.score += w * float64((c.cos-lo)/(hi-lo))
		}
		if best > 0 {
			c.score *= best // in the units of BM25, as lexical hits are
		}
	}
	slices.SortFunc(cands, func(a, b fuseCand) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]index.Hit, 0, k)
	var texts []string
	for _, c := range cands {
		if len(out) == k {
			break
		}
		lexical := c.lexRank >= 0
		if cut && !(lexical && found[c.lexRank].Relevant) && c.cos < meaningMinCos {
			continue
		}
		text := x.entries[c.id].Text
		if !lexical && slices.Contains(texts, text) {
			continue // the same memory saved twice is shown once
		}
		texts = append(texts, text)
		h := index.Hit{ID: c.id, Chunk: int(c.chunk)}
		if lexical {
			h = found[c.lexRank]
		}
		h.Score = c.score
		if !lexical || int(c.lexRank) >= k {
			meaning[h.ID] = float64(c.cos) // the dense signal brought it
		}
		out = append(out, h)
	}
	return out
}
