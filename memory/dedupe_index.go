package memory

// formSet holds the dedupe forms of the live entries by ID, indexed so that
// the forms a text may duplicate are found without comparing it with every
// one (an import of 100k memories would compare 5·10⁹ pairs).
//
// The index rests on the containment rule (see DedupeMinRunes): a form c
// holds a duplicate s only if s has at least minRunes(c) runes. Each form c
// is indexed by a few of its substrings of gramRunes(c) runes, its anchors,
// spaced so that every run of minRunes(c) runes of c holds one whole (see
// anchors). Whatever way two forms are duplicates, the anchors of the
// longer one (or of either, if equal) are then substrings of both: of the
// longer by definition, and of the shorter because it is such a run of the
// longer. So looking up every substring of a text, for the few gram lengths
// its duplicates may use, finds all its duplicates; the exact rule then
// decides. Forms shorter than DedupeMinRunes can only be equal: a map of
// them does.
type formSet struct {
	at    map[string]int32 // ID → slot
	ids   []string         // by slot; "" for a free slot
	forms []dedupeForm     // by slot
	free  []int32

	anchors map[uint64][]int32 // anchor hash → slots
	bloom   []uint64           // bloomBits bits: anchor hashes seen (never cleared)
	short   map[string][]int32 // key → slots of forms under DedupeMinRunes runes

	stamp []uint32 // by slot: the last lookup that met it
	cur   uint32
	runes []rune
}

const (
	maxGramRunes = 32 // long enough that unrelated texts rarely share one
	bloomBits    = 1 << 24
)

// minRunes is the fewest runes a duplicate contained in a form of n runes
// has.
func minRunes(n int) int { return max(DedupeMinRunes, (n+1)/2) }

// gramRunes is the length of the anchors of a form of n runes: a power of
// two from DedupeMinRunes to maxGramRunes, about half of minRunes(n), so
// that a form has two to four anchors and a text's duplicates use one or
// two lengths.
func gramRunes(n int) int {
	q, m := DedupeMinRunes, minRunes(n)
	for 2*q <= min(maxGramRunes, m/2) {
		q *= 2
	}
	return q
}

// anchors calls fn with the hash of each anchor of a form: the grams of
// gramRunes(n) runes (n the form's length) at every d-th position from d-1,
// with d = minRunes(n) - gramRunes(n) + 1, so that any run of minRunes(n)
// runes, starting at p, holds the first anchor at or after p (at most
// p+d-1) whole.
func anchors(rs []rune, fn func(h uint64)) {
	n := len(rs)
	if n < DedupeMinRunes {
		return
	}
	q := gramRunes(n)
	d := minRunes(n) - q + 1
	grams(rs, q, func(j int, h uint64) {
		if j%d == d-1 {
			fn(h)
		}
	})
}

// grams calls fn with the start and hash of every run of q runes of rs: a
// polynomial rolling hash, mixed, with q in it so that grams of different
// lengths differ.
func grams(rs []rune, q int, fn func(start int, h uint64)) {
	const base = 0x100000001B3
	if len(rs) < q {
		return
	}
	top := uint64(1) // base^(q-1)
	for range q - 1 {
		top *= base
	}
	h := uint64(0)
	for _, r := range rs[:q] {
		h = h*base + uint64(r)
	}
	for j := 0; ; j++ {
		x := (h + uint64(q)) * 0x9E3779B97F4A7C15
		fn(j, x^x>>29)
		if j+q == len(rs) {
			return
		}
		h = (h-uint64(rs[j])*top)*base + uint64(rs[j+q])
	}
}

func (fs *formSet) get(id string) (dedupeForm, bool) {
	if i, ok := fs.at[id]; ok {
		return fs.forms[i], true
	}
	return dedupeForm{}, false
}

func (fs *formSet) put(id string, f dedupeForm) {
	if i, ok := fs.at[id]; ok {
		fs.unindex(i)
		fs.forms[i] = f
		fs.index(i)
		return
	}
	if fs.at == nil {
		fs.at = make(map[string]int32)
		fs.anchors = make(map[uint64][]int32)
		fs.short = make(map[string][]int32)
		fs.bloom = make([]uint64, bloomBits/64)
	}
	var i int32
	if n := len(fs.free); n > 0 {
		i = fs.free[n-1]
		fs.free = fs.free[:n-1]
		fs.ids[i], fs.forms[i] = id, f
	} else {
		i = int32(len(fs.ids))
		fs.ids = append(fs.ids, id)
		fs.forms = append(fs.forms, f)
		fs.stamp = append(fs.stamp, 0)
	}
	fs.at[id] = i
	fs.index(i)
}

// remove drops the form of id.
func (fs *formSet) remove(id string) {
	i, ok := fs.at[id]
	if !ok {
		return
	}
	fs.unindex(i)
	fs.ids[i], fs.forms[i] = "", dedupeForm{}
	fs.free = append(fs.free, i)
	delete(fs.at, id)
}

// index adds slot i's form to the anchors (or the short forms).
func (fs *formSet) index(i int32) {
	f := &fs.forms[i]
	if f.runes < DedupeMinRunes {
		if f.key != "" {
			fs.short[f.key] = append(fs.short[f.key], i)
		}
		return
	}
	anchors(fs.runesOf(f.key), func(h uint64) {
		fs.bloom[h%bloomBits/64] |= 1 << (h % 64)
		fs.anchors[h] = append(fs.anchors[h], i)
	})
}

// unindex takes slot i's form out of the anchors (or the short forms).
func (fs *formSet) unindex(i int32) {
	f := &fs.forms[i]
	drop := func(m map[uint64][]int32, h uint64) {
		s := m[h]
		for k, v := range s {
			if v == i {
				s[k] = s[len(s)-1]
				s = s[:len(s)-1]
				break
			}
		}
		if len(s) == 0 {
			delete(m, h)
		} else {
			m[h] = s
		}
	}
	if f.runes < DedupeMinRunes {
		s := fs.short[f.key]
		for k, v := range s {
			if v == i {
				s = append(s[:k], s[k+1:]...)
				break
			}
		}
		if len(s) == 0 {
			delete(fs.short, f.key)
		} else {
			fs.short[f.key] = s
		}
		return
	}
	anchors(fs.runesOf(f.key), func(h uint64) { drop(fs.anchors, h) })
}

func (fs *formSet) runesOf(key string) []rune {
	rs := fs.runes[:0]
	for _, r := range key {
		rs = append(rs, r)
	}
	fs.runes = rs
	return rs
}

// candidates calls fn with the ID and form of every stored form that may
// duplicate f, once each; every one that does is among them.
func (fs *formSet) candidates(f *dedupeForm, fn func(id string, g *dedupeForm)) {
	if len(fs.ids) == 0 || f.key == "" {
		return
	}
	fs.cur++
	if fs.cur == 0 {
		clear(fs.stamp)
		fs.cur = 1
	}
	visit := func(i int32) {
		if fs.stamp[i] != fs.cur && fs.ids[i] != "" {
			fs.stamp[i] = fs.cur
			fn(fs.ids[i], &fs.forms[i])
		}
	}
	if f.runes < DedupeMinRunes {
		for _, i := range fs.short[f.key] {
			visit(i)
		}
		return
	}
	rs := fs.runesOf(f.key)
	n := len(rs)
	// Its duplicates have between minRunes(n) and 2n runes (n ≥ minRunes
	// of 2n), and anchors of those lengths.
	for q := gramRunes(minRunes(n)); q <= gramRunes(2*n); q *= 2 {
		grams(rs, q, func(_ int, h uint64) {
			if fs.bloom[h%bloomBits/64]&(1<<(h%64)) != 0 {
				for _, i := range fs.anchors[h] {
					visit(i)
				}
			}
		})
	}
}
