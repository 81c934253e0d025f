package memory

import (
	"slices"
	"sync"
	"time"
)

// Index is an inverted index over the chunks of the live entries, kept up
// to date incrementally: Put and Delete touch only the postings of the entry
// they change, document frequencies and lengths are maintained as they go,
// and Search never rebuilds anything. All methods are safe for concurrent
// use; searches run in parallel with each other.
type Index struct {
	mu     sync.RWMutex
	params rankParams
	tok    tokenizer // used by Put, under mu

	dict      map[string]int32 // term → term id
	terms     []termInfo       // by term id
	freeTerms []int32          // ids of terms with no postings left, for reuse

	// Chunks ("documents" to BM25), by doc id. A removed chunk stays in the
	// postings with docLen -1 until the next compaction.
	docLen  []int32 // length in terms, -1 when removed
	docSlot []int32 // entry slot
	docMeta []chunkMeta

	slots []entrySlot      // by slot
	byID  map[string]int32 // entry id → slot
	free  []int32          // free slots

	// Entries created in the same second, in insertion order: the context
	// an entry was saved in (the turns of one session, the memories
	// distilled from one exchange).
	groups  map[int64][]int32
	nextSeq uint64

	entries int   // live entries
	live    int   // live chunks
	dead    int   // removed chunks still in the postings
	totLen  int64 // total length of live chunks
	newest  time.Time

	// scratch for Put
	ids []int32

	pool sync.Pool // *searchScratch
}

// termInfo is the postings list of one term: doc ids in increasing order
// with the term frequency in each, and the number of live chunks holding it.
type termInfo struct {
	docs []int32
	tfs  []uint16
	df   int32
}

// chunkMeta describes one chunk: its place in the entry and its terms
// (sorted ids with their frequencies), used to remove it and to explain and
// expand a search.
type chunkMeta struct {
	chunk      int32
	offset     int32 // runes from the start of the entry text
	start, end int32 // bytes
	terms      []int32
	tfs        []uint16
}

type entrySlot struct {
	e     Entry
	docs  []int32
	live  bool
	hash  uint64 // of the text, to show the same text once
	seq   uint64 // order of first insertion
	group int64  // creation second: entries saved together are neighbours
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		params: defaultParams,
		dict:   make(map[string]int32),
		byID:   make(map[string]int32),
		groups: make(map[int64][]int32),
	}
}

// kindLabels are indexed with every entry so that asking for a kind by name,
// in English or Chinese, finds the entries of that kind.
var kindLabels = map[Kind]string{
	KindPreference: "preference 偏好",
	KindCorrection: "correction 纠正",
	KindLesson:     "lesson 经验 教训",
	KindFact:       "fact 事实",
}

// Put adds an entry or replaces the indexed version of it. Entries that are
// not Live are removed instead.
func (ix *Index) Put(e Entry) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !e.Live() {
		ix.deleteLocked(e.ID)
		return
	}
	slot, ok := ix.byID[e.ID]
	if ok {
		ix.dropDocs(slot)
		if g := e.Created.Unix(); g != ix.slots[slot].group {
			ix.leaveGroup(slot)
			ix.slots[slot].group = g
			ix.joinGroup(slot)
		}
	} else {
		if n := len(ix.free); n > 0 {
			slot = ix.free[n-1]
			ix.free = ix.free[:n-1]
		} else {
			slot = int32(len(ix.slots))
			ix.slots = append(ix.slots, entrySlot{})
		}
		ix.byID[e.ID] = slot
		ix.entries++
		ix.slots[slot].seq = ix.nextSeq
		ix.nextSeq++
		ix.slots[slot].group = e.Created.Unix()
		ix.joinGroup(slot)
	}
	s := &ix.slots[slot]
	s.e = e
	s.live = true
	s.hash = hashText(e.Text)
	s.docs = s.docs[:0]
	label := kindLabels[e.Kind]
	for ci, sp := range chunkText(e.Text) {
		d := ix.addDoc(slot, int32(ci), sp, e.Text[sp.start:sp.end], label)
		s.docs = append(s.docs, d)
	}
	if t := entryTime(e); t.After(ix.newest) {
		ix.newest = t
	}
}

// hashText is the FNV-1a hash of a text.
func hashText(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// entryTime is the time recency is measured from: the last edit, or the
// creation.
func entryTime(e Entry) time.Time {
	if e.Updated.After(e.Created) {
		return e.Updated
	}
	return e.Created
}

// addDoc indexes one chunk and returns its doc id.
func (ix *Index) addDoc(slot, chunk int32, sp chunkSpan, text, label string) int32 {
	ids := ix.ids[:0]
	length := int32(0)
	ix.tok.each(text, func(term []byte, class tokClass, _, _ int) {
		ids = append(ids, ix.termID(term))
		if class != tokUni && class != tokPart {
			length++
		}
	})
	ix.tok.each(label, func(term []byte, _ tokClass, _, _ int) {
		ids = append(ids, ix.termID(term))
	})
	slices.Sort(ids)
	d := int32(len(ix.docLen))
	m := chunkMeta{chunk: chunk, offset: int32(sp.runeOff), start: int32(sp.start), end: int32(sp.end)}
	uniq := 0
	for i := 0; i < len(ids); i++ {
		if i == 0 || ids[i] != ids[i-1] {
			uniq++
		}
	}
	m.terms = make([]int32, 0, uniq)
	m.tfs = make([]uint16, 0, uniq)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		tf := min(j-i, 65535)
		t := &ix.terms[ids[i]]
		t.docs = append(t.docs, d)
		t.tfs = append(t.tfs, uint16(tf))
		t.df++
		m.terms = append(m.terms, ids[i])
		m.tfs = append(m.tfs, uint16(tf))
		i = j
	}
	ix.ids = ids
	ix.docLen = append(ix.docLen, length)
	ix.docSlot = append(ix.docSlot, slot)
	ix.docMeta = append(ix.docMeta, m)
	ix.live++
	ix.totLen += int64(length)
	return d
}

// termID returns the id of a term, adding it to the dictionary if new.
func (ix *Index) termID(term []byte) int32 {
	if id, ok := ix.dict[string(term)]; ok {
		return id
	}
	var id int32
	if n := len(ix.freeTerms); n > 0 {
		id = ix.freeTerms[n-1]
		ix.freeTerms = ix.freeTerms[:n-1]
	} else {
		id = int32(len(ix.terms))
		ix.terms = append(ix.terms, termInfo{})
	}
	ix.dict[string(term)] = id
	return id
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
	ix.entries--
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
		for _, t := range ix.docMeta[d].terms {
			ix.terms[t].df--
		}
		ix.totLen -= int64(ix.docLen[d])
		ix.docLen[d] = -1
		ix.docMeta[d] = chunkMeta{}
		ix.live--
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
		for i, d := range t.docs {
			if nd := remap[d]; nd >= 0 {
				t.docs[j] = nd
				t.tfs[j] = t.tfs[i]
				j++
			}
		}
		t.docs = t.docs[:j]
		t.tfs = t.tfs[:j]
	}
	for term, id := range ix.dict {
		if len(ix.terms[id].docs) == 0 {
			delete(ix.dict, term)
			ix.terms[id] = termInfo{}
			ix.freeTerms = append(ix.freeTerms, id)
		}
	}
	for i := range ix.slots {
		for j, d := range ix.slots[i].docs {
			ix.slots[i].docs[j] = remap[d]
		}
	}
	ix.dead = 0
}

// joinGroup puts a slot in its creation group, in insertion order.
func (ix *Index) joinGroup(slot int32) {
	key := ix.slots[slot].group
	g := ix.groups[key]
	seq := ix.slots[slot].seq
	i := len(g)
	for i > 0 && ix.slots[g[i-1]].seq > seq {
		i--
	}
	ix.groups[key] = slices.Insert(g, i, slot)
}

// leaveGroup takes a slot out of its creation group.
func (ix *Index) leaveGroup(slot int32) {
	key := ix.slots[slot].group
	g := ix.groups[key]
	if i := slices.Index(g, slot); i >= 0 {
		g = slices.Delete(g, i, i+1)
	}
	if len(g) == 0 {
		delete(ix.groups, key)
	} else {
		ix.groups[key] = g
	}
}

// Len is the number of entries indexed.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.entries
}
