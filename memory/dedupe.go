package memory

import (
	"strings"
	"unicode"
)

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
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		r = foldWidth(r)
		if unicode.IsSpace(r) || unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// foldWidth maps full-width ASCII (U+FF01–U+FF5E) and the ideographic space
// to their half-width forms.
func foldWidth(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0
	case r == 0x3000:
		return ' '
	}
	return r
}

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
func dedupeMatch(a, b dedupeForm) bool {
	if a.key == b.key {
		return a.key != ""
	}
	if a.runes > b.runes {
		a, b = b, a
	}
	if a.runes < DedupeMinRunes || 2*a.runes < b.runes ||
		a.sig[0]&^b.sig[0]|a.sig[1]&^b.sig[1]|a.sig[2]&^b.sig[2]|a.sig[3]&^b.sig[3] != 0 {
		return false
	}
	return strings.Contains(b.key, a.key)
}

// IsDuplicate reports whether two memory texts count as the same memory
// under the dedupe rules.
func IsDuplicate(a, b string) bool { return dedupeMatch(newDedupeForm(a), newDedupeForm(b)) }
