package lexicon

import (
	_ "embed"
	"fmt"
	"iter"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:embed lexicon.bin
var embedded string

var (
	once    sync.Once
	loaded  *table
	loadErr error
)

// Load checks the embedded table, once; later calls return the first result.
// Lookups call it themselves, so calling it is only needed to learn of a
// damaged table (lookups then find nothing) or to pay the cost up front.
func Load() error {
	once.Do(func() {
		loaded, loadErr = parse(embedded)
		if loadErr != nil {
			loaded = emptyTable()
			loadErr = fmt.Errorf("load lexicon: %w", loadErr)
		}
	})
	return loadErr
}

func get() *table {
	Load()
	return loaded
}

// Term is a translation with its weight in (0, 1].
//
// In [Glosses] the weight says how well the term translates the word:
// 1/√(1+sense) · 1/√(terms in the gloss), so 1 is a one-term gloss of the
// first sense (花生 → peanut) and a function word's stray readings weigh
// little. In [Chinese] it is relative to the best word of the list, which
// weighs 1.
type Term struct {
	Text   string
	Weight float32
}

// Terms is a read-only list of translations, best first. The zero Terms is
// empty.
type Terms struct {
	t       *table
	refs    string // refs of the list
	targets string // records the refs point to
}

// Len is the number of terms.
func (ts Terms) Len() int { return len(ts.refs) / refSize }

// At returns the i-th term, 0 ≤ i < Len().
func (ts Terms) At(i int) Term {
	ref := u32(ts.refs, i*refSize)
	text, _ := ts.t.text(ts.targets, (ref>>8)*recordSize)
	return Term{Text: text, Weight: float32(ref&0xff) / 255}
}

// All yields the terms in order.
func (ts Terms) All() iter.Seq[Term] {
	return func(yield func(Term) bool) {
		for i := range ts.Len() {
			if !yield(ts.At(i)) {
				return
			}
		}
	}
}

func (t *table) list(recs, refs, targets string, i int) Terms {
	if i < 0 {
		return Terms{}
	}
	n, first := u16(recs, i*recordSize+6), u32(recs, i*recordSize+8)
	return Terms{t: t, refs: refs[first*refSize : (first+n)*refSize], targets: targets}
}

// Glosses returns the English terms the simplified Chinese word zh
// translates to; none when zh is not a word of the dictionary or all its
// senses are noise (surnames, variants, cross-references). Fold traditional
// text first.
func Glosses(zh string) Terms {
	t := get()
	return t.list(t.words, t.gloss, t.terms, t.find(t.words, &t.wordIdx, zh))
}

// Chinese returns the simplified Chinese words that translate the English
// index term en (lowercased and stemmed as the index makes it: "allergi",
// not "Allergy"), at most 8.
func Chinese(en string) Terms {
	t := get()
	return t.list(t.terms, t.chinese, t.words, t.find(t.terms, &t.termIdx, en))
}

// IsWord reports whether zh is a word of the dictionary.
func IsWord(zh string) bool {
	t := get()
	return t.find(t.words, &t.wordIdx, zh) >= 0
}

// MaxWordRunes is the number of runes in the dictionary's longest word.
func MaxWordRunes() int { return get().maxRunes }

// Match returns the byte length of the longest dictionary word that s starts
// with, or 0 when s starts with none.
func Match(s string) int {
	t := get()
	n, _ := t.prefix(t.words, &t.wordIdx, s, t.maxRunes)
	return n
}

// Segment splits s into dictionary words by greedy longest match from the
// left; a rune that starts no word is a segment of its own. Meant for runs of
// Chinese text: 我对花生过敏 → 我, 对, 花生, 过敏.
func Segment(s string) []string {
	var out []string
	for s != "" {
		n := Match(s)
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// FoldRune returns the simplified form of the traditional rune r, or r
// itself when r is simplified already, is not Chinese, or has more than one
// simplified form (then only a whole word can say which; see [Fold]).
func FoldRune(r rune) rune { return get().foldRune(r) }

func (t *table) foldRune(r rune) rune {
	if r < 0x2e80 {
		return r
	}
	lo, hi := 0, len(t.foldr)/pairSize
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rune(u32(t.foldr, m*pairSize)) < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.foldr)/pairSize && rune(u32(t.foldr, lo*pairSize)) == r {
		return rune(u32(t.foldr, lo*pairSize+4))
	}
	return r
}

// Fold returns s in simplified script: words the dictionary lists whole (乾燥
// → 干燥, where 乾 alone is ambiguous) by longest match, other runes by
// [FoldRune]. Simplified text, and anything that is not Chinese, comes back
// unchanged and without allocating.
func Fold(s string) string { return get().fold(s) }

func (t *table) fold(s string) string {
	if t.unchanged(s) {
		return s
	}
	return t.rewrite(s)
}

// rewrite is fold without the test for text that stays as it is.
func (t *table) rewrite(s string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < 0x2e80 {
			if changed {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		if hanBase <= r && r < hanEnd && t.mayFold[(r-hanBase)/64]&(1<<((r-hanBase)%64)) == 0 {
			if changed {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		if k, w := t.prefix(t.foldw, &t.foldIdx, s[i:], len(s)); k > 0 {
			if !changed {
				b.Grow(len(s))
				b.WriteString(s[:i])
				changed = true
			}
			so, sn := u32(t.foldw, w*recordSize+8), u16(t.foldw, w*recordSize+6)
			b.WriteString(t.blob[so : so+sn])
			i += k
			continue
		}
		f := t.foldRune(r)
		if f != r && !changed {
			b.Grow(len(s))
			b.WriteString(s[:i])
			changed = true
		}
		if changed {
			if f != r {
				b.WriteRune(f)
			} else {
				b.WriteString(s[i : i+n])
			}
		}
		i += n
	}
	if !changed {
		return s
	}
	return b.String()
}
