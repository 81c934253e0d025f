package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/memory/internal/analysis"
)

// DedupeMinRunes is the length, in runes, under which a text only
// duplicates an equal one.
//
// Dedupe compares texts after normalising them: lower case, full-width ASCII
// folded to half-width, white space and punctuation dropped (all of ASCII's
// punctuation and symbols, and Unicode punctuation such as CJK's 。，、「」).
// Two texts are duplicates when their normal forms are equal, or when one
// contains the other, the shorter has at least DedupeMinRunes runes and at
// least half the runes of the longer. Lengths are counted in runes, so a
// short Chinese preference is caught like an English one.
const DedupeMinRunes = 4

// dedupeKey is the normal form of a text for duplicate detection.
func dedupeKey(text string) string {
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if k := asciiKey[c]; k >= 0 {
				b = append(b, byte(k))
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		r = analysis.FoldWidth(r)
		if r < utf8.RuneSelf {
			if k := asciiKey[r]; k >= 0 {
				b = append(b, byte(k))
			}
			continue
		}
		if unicode.IsSpace(r) || unicode.IsPunct(r) {
			continue
		}
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return string(b)
}

// asciiKey is dedupeKey for each ASCII character: lowered, or -1 when it
// is left out (space, punctuation, symbol).
var asciiKey = func() (t [utf8.RuneSelf]int16) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = -1
		if !unicode.IsSpace(r) && !unicode.IsPunct(r) && !unicode.IsSymbol(r) {
			t[r] = int16(unicode.ToLower(r))
		}
	}
	return t
}()

// dedupeForm is a text's normal form, its length in runes, and a
// signature: a 256-bit set of the hashed rune pairs of the form. If a
// contains b, b's signature is a subset of a's, so most pairs are told apart
// without searching.
type dedupeForm struct {
	text  string // the text it was computed from
	key   string
	runes int
	sig   [4]uint64
}

func newDedupeForm(text string) dedupeForm {
	k := dedupeKey(text)
	f := dedupeForm{text: text, key: k}
	var prev rune
	for i, r := range k {
		f.runes++
		if i > 0 {
			h := (uint32(prev)*0x9E3779B1 ^ uint32(r)) * 0x85EBCA6B
			h >>= 24
			f.sig[h>>6] |= 1 << (h & 63)
		}
		prev = r
	}
	return f
}

// dedupeMatch reports whether two normal forms are duplicates: equal, or
// one containing the other within the rune thresholds.
func dedupeMatch(a, b dedupeForm) bool { return a.matches(&b) }

// matches is dedupeMatch. The cheap tests (length, signature) come first:
// two equal forms pass them.
func (f *dedupeForm) matches(o *dedupeForm) bool {
	a, b := f, o
	if a.runes > b.runes {
		a, b = b, a
	}
	if 2*a.runes < b.runes ||
		a.sig[0]&^b.sig[0]|a.sig[1]&^b.sig[1]|a.sig[2]&^b.sig[2]|a.sig[3]&^b.sig[3] != 0 {
		return false
	}
	if a.key == b.key {
		return a.key != ""
	}
	return a.runes >= DedupeMinRunes && strings.Contains(b.key, a.key)
}

// Duplicate returns the live entry that an Add of text would find already
// there (the rule Add dedupes by), if any. It reads the snapshot and
// compares with every live entry, so it is for occasional checks (a
// suggestion before it is held), not for bulk work.
func (s *Store) Duplicate(text string) (Entry, bool) {
	form := newDedupeForm(text)
	for _, e := range s.List() {
		if f := newDedupeForm(e.Text); form.matches(&f) {
			return e, true
		}
	}
	return Entry{}, false
}
