package index

import (
	"slices"
	"sync"
	"time"

	"engram/memory/internal/analysis"
)

// Index is an inverted index over the chunks of documents, kept up to date
// incrementally: Put and Delete touch only the postings of the entry
// they change, document frequencies and lengths are maintained as they go,
// and Search never rebuilds anything. All methods are safe for concurrent
// use; searches run in parallel with each other.
type Index struct {
	mu     sync.RWMutex
	params rankParams
	tok    analysis.Tokenizer // used by Put, under mu

	words     keyTable           // word term, by its 64-bit hash → term id
	cjk       keyTable           // CJK unigram or bigram (two runes) → term id
	terms     []termInfo         // by term id
	freeTerms []int32            // ids of terms with no postings left, for reuse
	uni       []int32            // CJK unigram term id + 1 by rune (BMP), used by Put
	labels    map[string][]int32 // term ids of each label, used by Put

	// Chunks ("documents" to BM25), by doc id. A removed chunk stays in the
	// postings with docLen -1 until the next compaction.
	docLen  []int32 // length in terms, -1 when removed
	docSlot []int32 // entry slot
	docMeta []chunkMeta

	slots []entrySlot      // by slot
	byID  map[string]int32 // entry id → slot
	free  []int32          // free slots

	// Entries created in the same second, by creation time then insertion:
	// the context an entry was saved in (the turns of one session, the
	// memories distilled from one exchange).
	groups  map[int64][]int32
	nextSeq uint64

	dead     int   // removed chunks still in the postings
	totLen   int64 // total length of live chunks
	newest   time.Time
	topBoost float32 // the largest Doc.Boost put so far, a bound for ranking

	// scratch for Put: a chunk's terms, and for each term id the last
	// chunk (stamp) that held it and where in terms
	ids   []uint32
	seen  []int32
	at    []int32
	stamp int32

	pool sync.Pool // *searchScratch
}

// termInfo is the postings list of one term, packed (doc id << tfBits |
// term frequency) in increasing doc order, and the number of live chunks
// holding it.
type termInfo struct {
	post []uint32
	df   int32
	hash uint64 // of the term, to break ties independently of ids
}

// Postings and chunk term lists pack an id and a term frequency in 32 bits:
// up to 2^26 chunks and terms, frequencies capped at 63 (BM25 saturates
// long before).
const (
	tfBits = 6
	tfMax  = 1<<tfBits - 1
)

func unpack(v uint32) (int32, float32) { return int32(v >> tfBits), float32(v & tfMax) }

// chunkMeta describes one chunk: its place in the entry and its terms
// (packed term id and frequency, by term id), used to remove it and to
// explain and expand a search.
type chunkMeta struct {
	chunk      int32
	offset     int32 // runes from the start of the entry text
	start, end int32 // bytes
	terms      []uint32
}

// tfOf returns the frequency of term id in the chunk, 0 if absent.
func (m *chunkMeta) tfOf(id int32) float32 {
	lo, hi := 0, len(m.terms)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int32(m.terms[mid]>>tfBits) < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(m.terms) && int32(m.terms[lo]>>tfBits) == id {
		return float32(m.terms[lo] & tfMax)
	}
	return 0
}

type entrySlot struct {
	e     Doc
	docs  []int32
	live  bool
	hash  uint64 // of the text, to show the same text once
	seq   uint64 // order of first insertion
	group int64  // creation second: entries saved together are neighbours
	// near holds the slots just before and after this one in its group,
	// plus one (0: none), kept by joinGroup and leaveGroup.
	near [2]int32
}

// New returns an empty index.
func New() *Index {
	return &Index{
		params: defaultParams,
		byID:   make(map[string]int32),
		groups: make(map[int64][]int32),
	}
}

// Put adds a document or replaces the indexed version of it.
func (ix *Index) Put(e Doc) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.putLocked(e)
}

// PutAll puts many documents, as many calls of Put would. Into an empty
// index (a store being loaded) it is faster: documents are tokenized in
// parallel, and the postings are laid out once at the end, each list in one
// piece, instead of growing document by document.
func (ix *Index) PutAll(es []Doc) { ix.PutAllWords(es, nil) }

// WordsFunc receives, from PutAllWords, the words of entry i (of the
// Docs given) as analysis.Tokenizer.Words finds them, lowercased as
// strings.ToLower does, perhaps repeated; the slices are valid only during
// the call. ok is false when the index did not collect them (a load that
// was not a bulk one): the caller finds them itself.
type WordsFunc func(i int, words [][]byte, ok bool)

// PutAllWords is PutAll, which also hands words the words of each entry,
// in order, from the tokenizing PutAll does anyway (see WordsFunc).
func (ix *Index) PutAllWords(es []Doc, words WordsFunc) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	bulk := len(ix.docLen) == 0
	if bulk {
		seen := make(map[string]struct{}, len(es))
		for _, e := range es {
			if _, dup := seen[e.ID]; dup {
				bulk = false
				break
			}
			seen[e.ID] = struct{}{}
		}
	}
	if !bulk {
		for i, e := range es {
			ix.putLocked(e)
			if words != nil {
				words(i, nil, false)
			}
		}
		return
	}
	if len(ix.byID) == 0 {
		ix.byID = make(map[string]int32, len(es))
	}
	ix.slots = slices.Grow(ix.slots, len(es))
	at := 0 // the index in es of the batch's first entry
	var buf [][]byte
	for b := range tokenizeAll(es, words != nil) {
		k := 0 // next token of the batch
		for i, e := range b.entries {
			slot, s := ix.slotFor(e)
			label := e.Label
			for ci, c := range b.chunks[b.first[i]:b.first[i+1]] {
				n := int(c.ntok)
				terms := ix.keyTerms(b.keys[k:k+n], b.classes[k:k+n], label)
				k += n
				d := ix.addDoc(slot, int32(ci), c.span, terms, c.length, true)
				s.docs = append(s.docs, d)
			}
			if words != nil {
				buf = b.entryWords(i, buf)
				words(at+i, buf, true)
			}
		}
		at += len(b.entries)
	}
	ix.layPostings()
}

// putLocked is Put. A new version that keeps the text, label and boost (a
// use recorded, a pin) only updates the document's bookkeeping: its chunks
// and their terms are the same.
func (ix *Index) putLocked(e Doc) {
	if slot, ok := ix.byID[e.ID]; ok && ix.slots[slot].e.Text == e.Text &&
		ix.slots[slot].e.Label == e.Label && ix.slots[slot].e.Boost == e.Boost {
		ix.setEntry(slot, e, false)
		return
	}
	slot, s := ix.slotFor(e)
	label := e.Label
	for ci, sp := range chunkText(e.Text) {
		terms, length := ix.chunkTerms(e.Text[sp.start:sp.end], label)
		d := ix.addDoc(slot, int32(ci), sp, terms, length, false)
		s.docs = append(s.docs, d)
	}
}

// slotFor returns the slot of a live entry about to be (re)indexed, with
// its previous chunks removed and its bookkeeping up to date.
func (ix *Index) slotFor(e Doc) (int32, *entrySlot) {
	slot, ok := ix.byID[e.ID]
	if ok {
		ix.dropDocs(slot)
	} else {
		slot = reuse(&ix.free, &ix.slots)
		ix.byID[e.ID] = slot
		ix.slots[slot].seq = ix.nextSeq
		ix.nextSeq++
	}
	ix.setEntry(slot, e, !ok)
	s := &ix.slots[slot]
	s.hash = hashText(e.Text)
	s.docs = s.docs[:0]
	return slot, s
}

// reuse returns the index of a free element of *items, taken from *free,
// or of a new zero element appended when there is none.
func reuse[T any](free *[]int32, items *[]T) int32 {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		return i
	}
	var zero T
	*items = append(*items, zero)
	return int32(len(*items) - 1)
}

// setEntry records a version of a slot's entry: its creation group (fresh:
// the slot has none yet) and the newest entry time.
func (ix *Index) setEntry(slot int32, e Doc, fresh bool) {
	s := &ix.slots[slot]
	if fresh || !e.Created.Equal(s.e.Created) {
		if !fresh {
			ix.leaveGroup(slot)
		}
		s.e.Created = e.Created
		s.group = e.Created.Unix()
		ix.joinGroup(slot)
	}
	s.e = e
	s.live = true
	ix.topBoost = max(ix.topBoost, e.Boost)
	if t := entryTime(e); t.After(ix.newest) {
		ix.newest = t
	}
}

// entryTime is the time recency is measured from: the last edit, or the
// creation.
func entryTime(e Doc) time.Time {
	if e.Updated.After(e.Created) {
		return e.Updated
	}
	return e.Created
}

// addDoc indexes one chunk and returns its doc id.
func (ix *Index) addDoc(slot, chunk int32, sp chunkSpan, terms []uint32, length int32, bulk bool) int32 {
	d := int32(len(ix.docLen))
	if !bulk {
		for _, v := range terms {
			t := &ix.terms[v>>tfBits]
			t.post = append(t.post, uint32(d)<<tfBits|v&tfMax)
			t.df++
		}
	}
	ix.docLen = append(ix.docLen, length)
	ix.docSlot = append(ix.docSlot, slot)
	ix.docMeta = append(ix.docMeta, chunkMeta{
		chunk: chunk, offset: int32(sp.runeOff), start: int32(sp.start), end: int32(sp.end), terms: terms,
	})
	ix.totLen += int64(length)
	return d
}

// Delete removes an entry. Removing an entry that is not indexed does
// nothing.
func (ix *Index) Delete(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.deleteLocked(id)
}

func (ix *Index) deleteLocked(id string) {
	slot, ok := ix.byID[id]
	if !ok {
		return
	}
	ix.dropDocs(slot)
	ix.leaveGroup(slot)
	s := &ix.slots[slot]
	wasNewest := !entryTime(s.e).Before(ix.newest)
	*s = entrySlot{docs: s.docs[:0]}
	delete(ix.byID, id)
	ix.free = append(ix.free, slot)
	if wasNewest {
		ix.newest = time.Time{}
		for i := range ix.slots {
			if ix.slots[i].live {
				if t := entryTime(ix.slots[i].e); t.After(ix.newest) {
					ix.newest = t
				}
			}
		}
	}
}

// dropDocs marks the chunks of an entry removed: their terms lose a document
// frequency now, their postings go at the next compaction.
func (ix *Index) dropDocs(slot int32) {
	for _, d := range ix.slots[slot].docs {
		for _, v := range ix.docMeta[d].terms {
			ix.terms[v>>tfBits].df--
		}
		ix.totLen -= int64(ix.docLen[d])
		ix.docLen[d] = -1
		ix.docMeta[d] = chunkMeta{}
		ix.dead++
	}
	ix.slots[slot].docs = ix.slots[slot].docs[:0]
	ix.maybeCompact()
}

// maybeCompact compacts once removed chunks make up half of the postings,
// which keeps the cost of removal amortised constant.
func (ix *Index) maybeCompact() {
	if ix.dead >= 256 && ix.dead*2 > len(ix.docLen) {
		ix.compact()
	}
}

// compact drops removed chunks from the postings and renumbers the rest,
// keeping their order; terms left with no postings are freed.
func (ix *Index) compact() {
	remap := make([]int32, len(ix.docLen))
	n := int32(0)
	for d, l := range ix.docLen {
		if l < 0 {
			remap[d] = -1
			continue
		}
		remap[d] = n
		ix.docLen[n] = l
		ix.docSlot[n] = ix.docSlot[d]
		ix.docMeta[n] = ix.docMeta[d]
		n++
	}
	clear(ix.docMeta[n:])
	ix.docLen = ix.docLen[:n]
	ix.docSlot = ix.docSlot[:n]
	ix.docMeta = ix.docMeta[:n]
	for id := range ix.terms {
		t := &ix.terms[id]
		j := 0
		for _, v := range t.post {
			if nd := remap[v>>tfBits]; nd >= 0 {
				t.post[j] = uint32(nd)<<tfBits | v&tfMax
				j++
			}
		}
		t.post = t.post[:j]
	}
	inUse := func(_ uint64, id int32) bool {
		if len(ix.terms[id].post) == 0 {
			ix.terms[id] = termInfo{}
			ix.freeTerms = append(ix.freeTerms, id)
			return false
		}
		return true
	}
	ix.words.keep(inUse)
	ix.cjk.keep(inUse)
	for i := range ix.slots {
		for j, d := range ix.slots[i].docs {
			ix.slots[i].docs[j] = remap[d]
		}
	}
	ix.dead = 0
	ix.uni, ix.labels = nil, nil // freed ids may be reused
}

// liveChunks is the number of chunks of the indexed entries.
func (ix *Index) liveChunks() int { return len(ix.docLen) - ix.dead }

// Len is the number of entries indexed.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byID)
}

// NewText returns an empty index for texts that are not memories (chat
// messages): BM25 with the lexicon's translations and the relevance
// cut-off, but without pseudo-relevance feedback and context, which find
// memories by words they do not hold and by what was saved beside them.
func NewText() *Index {
	ix := New()
	ix.params.prfDocs = 0
	ix.params.ctxWeight = 0
	return ix
}
