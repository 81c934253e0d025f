package lexicon

import (
	"testing"
	"unicode/utf8"
)

// TestFoldKeepsRunes checks what callers rely on to map a folded text's
// offsets back to the original: every fold, of a rune or of a word, keeps
// the number of runes (not always the number of bytes: 鵟 → 𫛭).
func TestFoldKeepsRunes(t *testing.T) {
	tb := get()
	for i := 0; i < len(tb.foldw)/recordSize; i++ {
		trad, _ := tb.text(tb.foldw, i*recordSize)
		so, sn := u32(tb.foldw, i*recordSize+8), u16(tb.foldw, i*recordSize+6)
		if simp := tb.blob[so : so+sn]; utf8.RuneCountInString(simp) != utf8.RuneCountInString(trad) {
			t.Errorf("word %s folds to %s: the number of runes changes", trad, simp)
		}
	}
}
