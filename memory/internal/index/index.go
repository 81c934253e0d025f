package index

import (
	"cmp"
	"iter"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

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
	labels    map[string][]int32 // term ids of each kind label, used by Put

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
func (ix *Index) PutAll(es []Doc) {
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
		for _, e := range es {
			ix.putLocked(e)
		}
		return
	}
	if len(ix.byID) == 0 {
		ix.byID = make(map[string]int32, len(es))
	}
	ix.slots = slices.Grow(ix.slots, len(es))
	for b := range tokenizeAll(es) {
		k := 0 // next token of the batch
		for i, e := range b.entries {
			slot, s := ix.slotFor(e)
			label := e.Label
			for ci, sp := range b.spans[i] {
				n := int(b.ntok[i][ci])
				terms := ix.keyTerms(b.keys[k:k+n], b.classes[k:k+n], label)
				k += n
				d := ix.addDoc(slot, int32(ci), sp, terms, b.length[i][ci], true)
				s.docs = append(s.docs, d)
			}
		}
	}
	ix.layPostings()
}

// tokenBatch is a run of entries tokenized ahead: the dictionary keys and
// classes of all their terms, and per entry and chunk the span, number of
// terms and length.
type tokenBatch struct {
	entries []Doc
	spans   [][]chunkSpan
	ntok    [][]int32
	length  [][]int32
	keys    []uint64
	classes []analysis.Class
}

// tokenizeAll tokenizes entries in batches on all processors and yields the
// batches in order; at most a few are held ahead of the consumer.
func tokenizeAll(es []Doc) iter.Seq[*tokenBatch] {
	return func(yield func(*tokenBatch) bool) {
		// Batches of up to 512 entries, and at least four per worker so that
		// a small store is shared out too.
		workers := max(runtime.GOMAXPROCS(0), 1)
		size := min(512, max(32, (len(es)+4*workers-1)/(4*workers)))
		n := (len(es) + size - 1) / size
		out := make([]chan *tokenBatch, n)
		for i := range out {
			out[i] = make(chan *tokenBatch, 1)
		}
		slots := make(chan struct{}, workers+1)
		done := make(chan struct{})
		defer close(done)
		go func() {
			for i := range n {
				select {
				case slots <- struct{}{}:
				case <-done:
					return
				}
				go func() {
					out[i] <- tokenizeBatch(es[i*size : min(len(es), (i+1)*size)])
				}()
			}
		}()
		for i := range n {
			b := <-out[i]
			<-slots
			if !yield(b) {
				return
			}
		}
	}
}

func tokenizeBatch(es []Doc) *tokenBatch {
	b := &tokenBatch{
		entries: es,
		spans:   make([][]chunkSpan, len(es)),
		ntok:    make([][]int32, len(es)),
		length:  make([][]int32, len(es)),
	}
	var tok analysis.Tokenizer
	for i, e := range es {
		b.spans[i] = chunkText(e.Text)
		for _, sp := range b.spans[i] {
			start := len(b.keys)
			length := int32(0)
			tok.Each(e.Text[sp.start:sp.end], func(term []byte, class analysis.Class, _, _ int) {
				b.keys = append(b.keys, termKey(term, class))
				b.classes = append(b.classes, class)
				if class != analysis.Uni && class != analysis.Part {
					length++
				}
			})
			b.ntok[i] = append(b.ntok[i], int32(len(b.keys)-start))
			b.length[i] = append(b.length[i], length)
		}
	}
	return b
}

// layPostings builds every postings list from the chunks' term lists (after
// a bulk PutAll): count, then place each posting, in doc order.
func (ix *Index) layPostings() {
	next := make([]int32, len(ix.terms)+1) // start of each list, then its cursor
	for _, m := range ix.docMeta {
		for _, v := range m.terms {
			next[v>>tfBits+1]++
		}
	}
	for i := 1; i < len(next); i++ {
		next[i] += next[i-1]
	}
	arena := make([]uint32, next[len(next)-1])
	for id := range ix.terms {
		start, end := next[id], next[id+1]
		ix.terms[id].post = arena[start:start:end]
		ix.terms[id].df = end - start
	}
	for d, m := range ix.docMeta {
		for _, v := range m.terms {
			t := &ix.terms[v>>tfBits]
			t.post = append(t.post, uint32(d)<<tfBits|v&tfMax)
		}
	}
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

// hashText is the FNV-1a hash of a text.
func hashText[T string | []byte](s T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
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

// chunkTerms tokenizes a chunk (and the label of its entry's kind) and
// returns its distinct terms, packed with their frequencies, in id order,
// and its length in terms.
func (ix *Index) chunkTerms(text, label string) ([]uint32, int32) {
	ix.startChunk()
	length := int32(0)
	ix.tok.Each(text, func(term []byte, class analysis.Class, _, _ int) {
		ix.addTerm(ix.keyID(termKey(term, class), class))
		if class != analysis.Uni && class != analysis.Part {
			length++
		}
	})
	return ix.endChunk(label), length
}

// keyTerms is chunkTerms for a chunk tokenized ahead.
func (ix *Index) keyTerms(keys []uint64, classes []analysis.Class, label string) []uint32 {
	ix.startChunk()
	for i, key := range keys {
		ix.addTerm(ix.keyID(key, classes[i]))
	}
	return ix.endChunk(label)
}

func (ix *Index) startChunk() {
	ix.stamp++
	if ix.stamp == math.MaxInt32 {
		clear(ix.seen)
		ix.stamp = 1
	}
	ix.ids = ix.ids[:0]
}

// addTerm counts one occurrence of a term in the current chunk.
func (ix *Index) addTerm(id int32) {
	if int(id) >= len(ix.seen) {
		n := max(2*len(ix.seen), int(id)+1, 1024)
		ix.seen = append(ix.seen, make([]int32, n-len(ix.seen))...)
		ix.at = append(ix.at, make([]int32, n-len(ix.at))...)
	}
	if ix.seen[id] == ix.stamp {
		if k := ix.at[id]; ix.ids[k]&tfMax < tfMax {
			ix.ids[k]++
		}
		return
	}
	ix.seen[id] = ix.stamp
	ix.at[id] = int32(len(ix.ids))
	ix.ids = append(ix.ids, uint32(id)<<tfBits|1)
}

// endChunk adds the label's terms and returns the chunk's terms in id order.
func (ix *Index) endChunk(label string) []uint32 {
	for _, id := range ix.labelIDs(label) {
		ix.addTerm(id)
	}
	slices.Sort(ix.ids)
	return slices.Clone(ix.ids)
}

// labelIDs returns the term ids of a kind label, tokenized once.
func (ix *Index) labelIDs(label string) []int32 {
	if ids, ok := ix.labels[label]; ok {
		return ids
	}
	var ids []int32
	ix.tok.Each(label, func(term []byte, class analysis.Class, _, _ int) {
		ids = append(ids, ix.keyID(termKey(term, class), class))
	})
	if ix.labels == nil {
		ix.labels = make(map[string][]int32)
	}
	ix.labels[label] = ids
	return ids
}

// cjkKey packs the one or two runes of a CJK term.
func cjkKey(term []byte) uint64 {
	r1, n := utf8.DecodeRune(term)
	var r2 rune
	if n < len(term) {
		r2, _ = utf8.DecodeRune(term[n:])
	}
	return uint64(r1)<<32 | uint64(r2)
}

// wordKey is the dictionary key of a word term: its 64-bit hash (never 0).
// Two words of a vocabulary of millions share a hash with odds of about
// one in ten million; they would then count as one term.
func wordKey(term []byte) uint64 {
	return hashText(term) | 1
}

// termKey is a term's dictionary key: its runes for CJK, its hash for
// words.
func termKey(term []byte, class analysis.Class) uint64 {
	if class >= analysis.Bi {
		return cjkKey(term)
	}
	return wordKey(term)
}

// lookup returns the id of a term, if known.
func (ix *Index) lookup(term []byte, class analysis.Class) (int32, bool) {
	if class >= analysis.Bi {
		return ix.cjk.get(cjkKey(term))
	}
	return ix.words.get(wordKey(term))
}

// keyID returns the id of the term with this key, adding it if new.
func (ix *Index) keyID(key uint64, class analysis.Class) int32 {
	if class < analysis.Bi {
		return ix.tableID(&ix.words, key, false)
	}
	r := key >> 32
	if key&0xffffffff != 0 || r >= 1<<16 {
		return ix.tableID(&ix.cjk, key, true)
	}
	// a CJK character of the BMP: by rune, without hashing
	if ix.uni == nil {
		ix.uni = make([]int32, 1<<16)
	}
	if id := ix.uni[r]; id > 0 {
		return id - 1
	}
	id := ix.tableID(&ix.cjk, key, true)
	ix.uni[r] = id + 1
	return id
}

// tableID looks a key up in a dictionary table, adding the term if new.
func (ix *Index) tableID(table *keyTable, key uint64, cjk bool) int32 {
	if id, ok := table.get(key); ok {
		return id
	}
	id := reuse(&ix.freeTerms, &ix.terms)
	h := key // a word's key is its hash
	if cjk {
		var b [8]byte
		n := utf8.EncodeRune(b[:], rune(key>>32))
		if r2 := rune(key & 0xffffffff); r2 != 0 {
			n += utf8.EncodeRune(b[n:], r2)
		}
		h = hashText(b[:n])
	}
	ix.terms[id].hash = h
	table.put(key, id)
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

// joinGroup puts a slot (its entry set) in its creation group, in order.
func (ix *Index) joinGroup(slot int32) {
	key := ix.slots[slot].group
	g := ix.groups[key]
	i, _ := slices.BinarySearchFunc(g, slot, ix.groupOrder)
	g = slices.Insert(g, i, slot)
	ix.groups[key] = g
	ix.relink(g, i-1, i+2)
}

// groupOrder orders the entries of a group by creation time, then by first
// insertion.
func (ix *Index) groupOrder(a, b int32) int {
	x, y := &ix.slots[a], &ix.slots[b]
	if c := x.e.Created.Compare(y.e.Created); c != 0 {
		return c
	}
	return cmp.Compare(x.seq, y.seq)
}

// leaveGroup takes a slot out of its creation group.
func (ix *Index) leaveGroup(slot int32) {
	key := ix.slots[slot].group
	g := ix.groups[key]
	if i := slices.Index(g, slot); i >= 0 {
		g = slices.Delete(g, i, i+1)
		ix.relink(g, i-1, i+1)
	}
	if len(g) == 0 {
		delete(ix.groups, key)
	} else {
		ix.groups[key] = g
	}
}

// relink sets the neighbours (near) of the slots g[from:to] that exist.
func (ix *Index) relink(g []int32, from, to int) {
	for i := max(from, 0); i < min(to, len(g)); i++ {
		var near [2]int32
		if i > 0 {
			near[0] = g[i-1] + 1
		}
		if i+1 < len(g) {
			near[1] = g[i+1] + 1
		}
		ix.slots[g[i]].near = near
	}
}

// liveChunks is the number of chunks of the indexed entries.
func (ix *Index) liveChunks() int { return len(ix.docLen) - ix.dead }

// Len is the number of entries indexed.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byID)
}
