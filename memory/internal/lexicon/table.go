package lexicon

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The table format is written by ./gen and described in README.md.
const (
	magic      = "ENGLEX1\n"
	headerSize = len(magic) + 8*4
	recordSize = 12 // words, terms and fold words
	refSize    = 4
	pairSize   = 8 // fold runes
)

// table is a parsed view of the bytes: sections of one string, read in place.
type table struct {
	maxRunes int
	words    string // records of the Chinese words
	gloss    string // refs from words to terms
	terms    string // records of the English terms
	chinese  string // refs from terms to words
	foldr    string // traditional → simplified rune pairs
	foldw    string // traditional → simplified word records
	blob     string

	wordIdx, termIdx, foldIdx bucketIndex
	mayFold                   []uint64 // bit r-hanBase: r folds alone or starts a fold word
	// What a fold can change, for fold's shortcut (see unchanged): foldsTo
	// marks (bit r-hanBase) the runes that fold alone or that a fold word
	// writes otherwise; changes lists, for the latter, those words and
	// where the rune is in them. foldsOut: a fold changes a rune below
	// U+2E80, so the shortcut cannot be taken.
	foldsTo  []uint64
	changes  map[rune][]wordChange
	foldsOut bool
}

// hanBase and hanEnd bound the common Han runes (CJK Extension A and the
// Unified Ideographs); the indexes below cover them, other runes take the
// slow path.
const (
	hanBase = 0x3400
	hanEnd  = 0xa000
)

// bucketIndex maps a record list's first runes to the range of records that
// start with them, so a lookup searches tens of records, not all of them.
type bucketIndex struct {
	base, end rune     // runes covered
	start     []uint32 // start[r-base] is the first record whose first rune is ≥ r
	n         int      // records in the list
}

func newBucketIndex(t *table, recs string, base, end rune) bucketIndex {
	ix := bucketIndex{base: base, end: end, start: make([]uint32, end-base+1), n: len(recs) / recordSize}
	b := 0
	for i := range ix.n {
		s, _ := t.text(recs, i*recordSize)
		r := rune(-1)
		if s != "" {
			r, _ = utf8.DecodeRuneInString(s)
		}
		for b < len(ix.start) && r >= base+rune(b) {
			ix.start[b] = uint32(i)
			b++
		}
	}
	for ; b < len(ix.start); b++ {
		ix.start[b] = uint32(ix.n)
	}
	return ix
}

// rng is the range of records that may start with s's first rune.
func (ix *bucketIndex) rng(s string) (int, int) {
	if s == "" {
		return 0, ix.n
	}
	r, _ := utf8.DecodeRuneInString(s)
	if r < ix.base || r >= ix.end {
		return 0, ix.n
	}
	return int(ix.start[r-ix.base]), int(ix.start[r-ix.base+1])
}

func u16(s string, i int) int { return int(s[i]) | int(s[i+1])<<8 }

func u32(s string, i int) int {
	return int(s[i]) | int(s[i+1])<<8 | int(s[i+2])<<16 | int(s[i+3])<<24
}

// parse checks data and returns the table that reads it. Every offset, count
// and index is checked here, and the sort order the lookups rely on, so the
// lookups need no checks of their own.
func parse(data string) (*table, error) {
	if len(data) < headerSize || data[:len(magic)] != magic {
		return nil, errors.New("not a lexicon table (bad magic)")
	}
	var h [8]int
	for i := range h {
		h[i] = u32(data, len(magic)+4*i)
	}
	maxRunes, nWords, nGloss, nTerms, nChinese, nFoldR, nFoldW, nBlob := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	sizes := []int{nWords * recordSize, nGloss * refSize, nTerms * recordSize, nChinese * refSize,
		nFoldR * pairSize, nFoldW * recordSize, nBlob}
	total := headerSize
	for _, n := range sizes {
		total += n
	}
	if total != len(data) {
		return nil, fmt.Errorf("table is %d bytes, header says %d", len(data), total)
	}
	var sec [7]string
	at := headerSize
	for i, n := range sizes {
		sec[i] = data[at : at+n]
		at += n
	}
	t := &table{maxRunes: maxRunes, words: sec[0], gloss: sec[1], terms: sec[2], chinese: sec[3],
		foldr: sec[4], foldw: sec[5], blob: sec[6]}
	if err := t.checkRecords("word", t.words, t.gloss, nTerms); err != nil {
		return nil, err
	}
	if err := t.checkRecords("term", t.terms, t.chinese, nWords); err != nil {
		return nil, err
	}
	if err := t.checkFold(); err != nil {
		return nil, err
	}
	t.wordIdx = newBucketIndex(t, t.words, hanBase, hanEnd)
	t.termIdx = newBucketIndex(t, t.terms, 0, utf8.RuneSelf)
	t.foldIdx = newBucketIndex(t, t.foldw, hanBase, hanEnd)
	t.mayFold = make([]uint64, (hanEnd-hanBase+63)/64)
	mark := func(r rune) {
		if hanBase <= r && r < hanEnd {
			t.mayFold[(r-hanBase)/64] |= 1 << ((r - hanBase) % 64)
		}
	}
	for i := 0; i < len(t.foldr); i += pairSize {
		mark(rune(u32(t.foldr, i)))
	}
	for i := 0; i < len(t.foldw); i += recordSize {
		s, _ := t.text(t.foldw, i)
		r, _ := utf8.DecodeRuneInString(s)
		mark(r)
	}
	t.markChanges()
	return t, nil
}

// wordChange is a fold word that writes one of its runes otherwise, and
// that rune's offset in it, in runes.
type wordChange struct {
	word string
	at   int
}

// markChanges sets foldsTo, changes and foldsOut.
func (t *table) markChanges() {
	t.foldsTo = make([]uint64, (hanEnd-hanBase+63)/64)
	t.changes = make(map[rune][]wordChange)
	mark := func(r rune) {
		switch {
		case hanBase <= r && r < hanEnd:
			t.foldsTo[(r-hanBase)/64] |= 1 << ((r - hanBase) % 64)
		case r < 0x2e80:
			t.foldsOut = true
		}
	}
	for i := 0; i < len(t.foldr); i += pairSize {
		mark(rune(u32(t.foldr, i)))
	}
	for i := 0; i < len(t.foldw); i += recordSize {
		trad, _ := t.text(t.foldw, i)
		so, sn := u32(t.foldw, i+8), u16(t.foldw, i+6)
		simp := t.blob[so : so+sn]
		if utf8.RuneCountInString(trad) != utf8.RuneCountInString(simp) {
			t.foldsOut = true // no rune-by-rune comparison
			continue
		}
		j, at := 0, 0
		for _, r := range trad {
			s, n := utf8.DecodeRuneInString(simp[j:])
			j += n
			if r != s {
				mark(r)
				t.changes[r] = append(t.changes[r], wordChange{trad, at})
			}
			at++
		}
	}
}

// unchanged reports whether s surely folds to itself: no rune of it from
// U+2E80 up is one a fold may change, or each such rune folds only within
// words that s does not hold around it.
func (t *table) unchanged(s string) bool {
	if t.foldsOut {
		return false
	}
	for i, r := range s {
		if r < 0x2e80 {
			continue
		}
		if r < hanBase || r >= hanEnd {
			return false
		}
		if t.foldsTo[(r-hanBase)/64]&(1<<((r-hanBase)%64)) == 0 {
			continue
		}
		if t.foldRune(r) != r {
			return false
		}
		for _, c := range t.changes[r] {
			if holdsAt(s, i, c) {
				return false
			}
		}
	}
	return true
}

// holdsAt reports whether s holds c.word with its changed rune at byte i.
func holdsAt(s string, i int, c wordChange) bool {
	start := i
	for range c.at {
		if start == 0 {
			return false
		}
		_, n := utf8.DecodeLastRuneInString(s[:start])
		start -= n
	}
	return strings.HasPrefix(s[start:], c.word)
}

// emptyTable is a valid table with nothing in it; it serves every lookup
// when the embedded table is unusable.
func emptyTable() *table {
	t, err := parse(magic + strings.Repeat("\x00", headerSize-len(magic)))
	if err != nil {
		panic(err) // the format itself is broken
	}
	return t
}

// checkRecords checks a sorted list of records and the refs they own.
func (t *table) checkRecords(what, recs, refs string, targets int) error {
	prev := ""
	next := 0 // refs are laid out in record order
	for i := 0; i < len(recs); i += recordSize {
		s, ok := t.text(recs, i)
		if !ok {
			return fmt.Errorf("%s %d: text out of range", what, i/recordSize)
		}
		if !utf8.ValidString(s) {
			return fmt.Errorf("%s %d (%q): not UTF-8", what, i/recordSize, s)
		}
		if i > 0 && s <= prev {
			return fmt.Errorf("%s %d (%q): out of order", what, i/recordSize, s)
		}
		prev = s
		n, first := u16(recs, i+6), u32(recs, i+8)
		if first != next || (first+n)*refSize > len(refs) {
			return fmt.Errorf("%s %d (%q): refs out of range", what, i/recordSize, s)
		}
		next = first + n
		for r := first; r < first+n; r++ {
			ref := u32(refs, r*refSize)
			if ref>>8 >= targets || ref&0xff == 0 {
				return fmt.Errorf("%s %d (%q): bad ref %#x", what, i/recordSize, s, ref)
			}
		}
	}
	if next*refSize != len(refs) {
		return fmt.Errorf("%s refs: %d bytes not owned by any %s", what, len(refs)-next*refSize, what)
	}
	return nil
}

func (t *table) checkFold() error {
	prev := -1
	for i := 0; i < len(t.foldr); i += pairSize {
		tr, sr := u32(t.foldr, i), u32(t.foldr, i+4)
		if tr <= prev || sr > 0x10ffff {
			return fmt.Errorf("fold rune %d: out of order or out of range", i/pairSize)
		}
		prev = tr
	}
	prevWord := ""
	for i := 0; i < len(t.foldw); i += recordSize {
		s, ok := t.text(t.foldw, i)
		so, sn := u32(t.foldw, i+8), u16(t.foldw, i+6)
		if !ok || so+sn > len(t.blob) {
			return fmt.Errorf("fold word %d: text out of range", i/recordSize)
		}
		if !utf8.ValidString(s) || s == "" || (i > 0 && s <= prevWord) {
			return fmt.Errorf("fold word %d (%q): empty, not UTF-8 or out of order", i/recordSize, s)
		}
		prevWord = s
	}
	return nil
}

// text is the string of the record at byte i of recs.
func (t *table) text(recs string, i int) (string, bool) {
	off, n := u32(recs, i), u16(recs, i+4)
	if off+n > len(t.blob) {
		return "", false
	}
	return t.blob[off : off+n], true
}

// find returns the index of the record of recs (indexed by ix) whose text
// is s, or -1.
func (t *table) find(recs string, ix *bucketIndex, s string) int {
	lo, hi := ix.rng(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if k, _ := t.text(recs, m*recordSize); k < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < ix.n {
		if k, _ := t.text(recs, lo*recordSize); k == s {
			return lo
		}
	}
	return -1
}

// prefix returns the byte length of the longest record text that is a prefix
// of s, and that record's index; 0 and -1 when there is none. It narrows the
// range of records sharing s's first 1, 2, … runes, so it stops as soon as no
// record goes on the way s does.
func (t *table) prefix(recs string, ix *bucketIndex, s string, maxRunes int) (int, int) {
	lo, hi := ix.rng(s)
	best, bestIdx := 0, -1
	k, runes := 0, 0
	for k < len(s) && runes < maxRunes && lo < hi {
		_, n := utf8.DecodeRuneInString(s[k:])
		k += n
		runes++
		p := s[:k]
		// first record ≥ p
		a, b := lo, hi
		for a < b {
			m := int(uint(a+b) >> 1)
			if x, _ := t.text(recs, m*recordSize); x < p {
				a = m + 1
			} else {
				b = m
			}
		}
		lo = a
		// first record that does not start with p
		a, b = lo, hi
		for a < b {
			m := int(uint(a+b) >> 1)
			if x, _ := t.text(recs, m*recordSize); len(x) >= len(p) && x[:len(p)] == p {
				a = m + 1
			} else {
				b = m
			}
		}
		hi = a
		if lo < hi {
			if x, _ := t.text(recs, lo*recordSize); x == p {
				best, bestIdx = k, lo
			}
		}
	}
	return best, bestIdx
}
