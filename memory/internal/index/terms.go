package index

import (
	"math"
	"slices"
	"unicode/utf8"

	"engram/memory/internal/analysis"
)

// hashText is the FNV-1a hash of a text.
func hashText[T string | []byte](s T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// chunkTerms tokenizes a chunk (and its entry's label) and
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

// labelIDs returns the term ids of a label, tokenized once.
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
