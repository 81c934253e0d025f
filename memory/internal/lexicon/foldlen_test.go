package lexicon

import (
	"testing"
	"unicode/utf8"
)

// TestFoldKeepsRunes checks what callers rely on to map a folded text's
// offsets back to the original: every fold, of a rune or of a word, keeps
// the number of runes (not always the number of bytes: 鵟 → 𫛭).
func TestFoldKeepsRunes(t *testing.T) {
	t.Parallel()
	tb := get()
	for i := 0; i < len(tb.foldw)/recordSize; i++ {
		trad, _ := tb.text(tb.foldw, i*recordSize)
		so, sn := u32(tb.foldw, i*recordSize+8), u16(tb.foldw, i*recordSize+6)
		if simp := tb.blob[so : so+sn]; utf8.RuneCountInString(simp) != utf8.RuneCountInString(trad) {
			t.Errorf("word %s folds to %s: the number of runes changes", trad, simp)
		}
	}
}

// TestUnchanged checks fold's shortcut: a text it lets through unchanged
// is one that the full rewrite leaves as it is, for every fold word and
// every Han rune, each alone and within a sentence; and common simplified
// text takes the shortcut.
func TestUnchanged(t *testing.T) {
	t.Parallel()
	tb := get()
	if tb.foldsOut {
		t.Fatal("the embedded table changes runes outside the bitmap: fold never takes its shortcut")
	}
	check := func(s string) {
		if tb.unchanged(s) && tb.rewrite(s) != s {
			t.Errorf("unchanged(%q), but it folds to %q", s, tb.rewrite(s))
		}
	}
	for i := 0; i < len(tb.foldw)/recordSize; i++ {
		trad, _ := tb.text(tb.foldw, i*recordSize)
		so, sn := u32(tb.foldw, i*recordSize+8), u16(tb.foldw, i*recordSize+6)
		simp := tb.blob[so : so+sn]
		check(trad)
		check(simp)
		check("我们" + simp + "的")
	}
	for r := rune(hanBase); r < hanEnd; r++ {
		check(string(r))
		check("这是" + string(r) + "吗")
	}
	for _, s := range []string{"我对花生过敏点外卖要注意什么", "plain English text", "coffee 咖啡 和茶"} {
		if !tb.unchanged(s) {
			t.Errorf("unchanged(%q) = false, want the shortcut", s)
		}
	}
}
