package memory

import (
	"sync"
	"time"

	"engram/memory/internal/index"
)

// Defaults of an auto-recall: how many memories are injected at most and how
// many characters (runes) the injected block may take.
const (
	DefaultTopK   = 5
	DefaultBudget = 2400
)

// Chunking of long entries: windows of ChunkRunes runes that overlap by
// ChunkOverlap runes, so a long entry is found by the part that matches.
const (
	ChunkRunes   = index.ChunkRunes
	ChunkOverlap = index.ChunkOverlap
)

// Hit is one recalled memory: the entry, its score, the chunk that matched
// (index and rune offset in Entry.Text) and the words of the message (or of
// the earlier messages) it matched, so a person can see why it was recalled.
// A word matched through its translation reads "咖啡 → coffee": the word as
// typed, then what it matched in the memory.
type Hit struct {
	Entry  Entry
	Score  float64
	Chunk  int
	Offset int
	Terms  []string
	// Earlier are those of Terms that only the earlier messages matched,
	// not the message itself.
	Earlier []string
	// Meaning is the cosine between the message and the hit's chunk when
	// the dense signal brought the hit (it matched no word, or ranked among
	// the best only for its meaning): "similar meaning". 0 otherwise.
	Meaning float64
}

// RecallOptions tunes one recall. Zero values mean the defaults.
type RecallOptions struct {
	K        int       // how many hits at most (default DefaultTopK)
	NoCutoff bool      // lift the relevance cut-off (bench-recall)
	Now      time.Time // reference time for recency (default: the newest entry's time)
	// Semantic weighs the dense signal against BM25 when the index has an
	// embedder (default DefaultSemanticWeight; negative: words only).
	Semantic float64
}

// kindLabels are indexed with every entry so that asking for a kind by name,
// in English or Chinese, finds the entries of that kind.
var kindLabels = map[Kind]string{
	KindPreference: "preference 偏好",
	KindCorrection: "correction 纠正",
	KindLesson:     "lesson 经验 教训",
	KindFact:       "fact 事实",
}

// kindBoost is what an entry's kind adds to its score factor, by
// Kind.Strength: preferences and corrections weigh a little more.
var kindBoost = [5]float32{4: 0.05, 3: 0.05}

// EntryIndex is the search index of live entries: the BM25 index of package
// index over their texts, and the entries its hits stand for. Entries that
// are not Live are removed instead of indexed. All methods are safe for
// concurrent use; searches run in parallel with each other.
type EntryIndex struct {
	mu      sync.RWMutex // Put and Delete exclusive, searches shared
	ix      *index.Index
	entries map[string]Entry // the indexed version of each entry, by ID
	words   *wordDict        // the words of the entries, for Complete
	sem     *semantic        // the dense signal, nil without an embedder
}

// NewEntryIndex returns an empty index.
func NewEntryIndex() *EntryIndex {
	return &EntryIndex{ix: index.New(), entries: make(map[string]Entry), words: newWordDict()}
}

// docOf is what the index sees of an entry.
func docOf(e Entry) index.Doc {
	return index.Doc{
		ID:       e.ID,
		Text:     e.Text,
		Label:    kindLabels[e.Kind],
		Boost:    kindBoost[e.Kind.Strength()],
		Pinned:   e.Pinned,
		Uses:     e.Uses,
		LastUsed: e.LastUsed,
		Created:  e.Created,
		Updated:  e.Updated,
	}
}

// Put adds an entry or replaces the indexed version of it. Entries that are
// not Live are removed instead.
func (x *EntryIndex) Put(e Entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.putLocked(e)
}

func (x *EntryIndex) putLocked(e Entry) {
	if !e.Live() {
		x.deleteLocked(e.ID)
		return
	}
	old, ok := x.entries[e.ID]
	x.entries[e.ID] = e
	x.ix.Put(docOf(e))
	x.words.put(e.ID, e.Text)
	x.semanticPut(e, old, ok)
}

// PutAll puts many entries, as many calls of Put would, faster into an
// empty index (a store being loaded; see index.Index.PutAll).
func (x *EntryIndex) PutAll(es []Entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	docs := make([]index.Doc, 0, len(es))
	for _, e := range es {
		if !e.Live() { // a removal among them: one at a time, in order
			for _, e := range es {
				x.putLocked(e)
			}
			return
		}
		docs = append(docs, docOf(e))
	}
	if len(x.entries) == 0 {
		x.entries = make(map[string]Entry, len(es))
	}
	for _, e := range es {
		old, ok := x.entries[e.ID]
		x.entries[e.ID] = e
		x.semanticPut(e, old, ok)
	}
	bulk := len(x.words.byID) == 0
	x.ix.PutAllWords(docs, func(i int, words [][]byte, ok bool) {
		if e := es[i]; bulk {
			x.words.putBulk(e.ID, e.Text, words, ok)
		} else {
			x.words.put(e.ID, e.Text)
		}
	})
	if bulk {
		x.words.sortWords()
	}
}

// Delete removes an entry. Removing an entry that is not indexed does
// nothing.
func (x *EntryIndex) Delete(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.deleteLocked(id)
}

func (x *EntryIndex) deleteLocked(id string) {
	delete(x.entries, id)
	x.ix.Delete(id)
	x.words.delete(id)
	x.semanticDelete(id)
}

// update brings the index from the records old to recs: it drops the
// entries recs lacks and puts those that changed, under one lock, so a
// search sees the records before or after, never a mix.
func (x *EntryIndex) update(old, recs map[string]Entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for id := range old {
		if _, ok := recs[id]; !ok {
			x.deleteLocked(id)
		}
	}
	for id, e := range recs {
		if o, ok := old[id]; ok && sameEntry(o, e) {
			continue
		}
		x.putLocked(e)
	}
}

// Len is the number of entries indexed.
func (x *EntryIndex) Len() int { return x.ix.Len() }

// Search ranks the indexed entries for a query, with earlier user messages
// of the same chat (oldest first) as history (see package index for how).
// It returns at most opts.K hits, best first, one per entry (its best
// chunk), and without opts.NoCutoff only those relevant enough to be worth
// showing.
func (x *EntryIndex) Search(query string, history []string, opts RecallOptions) []Hit {
	k := opts.K
	if k <= 0 {
		k = DefaultTopK
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if sem := x.sem; sem != nil && sem.ready && sem.set.Len() > 0 && opts.Semantic >= 0 {
		w := opts.Semantic
		if w == 0 {
			w = DefaultSemanticWeight
		}
		return x.fused(sem, query, history, k, opts, w)
	}
	found := x.ix.Search(query, history, index.Options{K: k, NoCutoff: opts.NoCutoff, Now: opts.Now})
	if found == nil {
		return nil
	}
	hits := make([]Hit, len(found))
	for i, h := range found {
		hits[i] = Hit{Entry: x.entries[h.ID], Score: h.Score, Chunk: h.Chunk, Offset: h.Offset, Terms: h.Terms,
			Earlier: h.Earlier}
	}
	return hits
}
