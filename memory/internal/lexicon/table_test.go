package lexicon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample(t testing.TB) string {
	b, err := os.ReadFile(filepath.Join("gen", "testdata", "sample.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSampleTable reads the generator's golden output on the sample source.
func TestSampleTable(t *testing.T) {
	t.Parallel()
	tb, err := parse(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	g := tb.list(tb.words, tb.gloss, tb.terms, tb.find(tb.words, &tb.wordIdx, "花生"))
	if g.Len() == 0 || g.At(0).Text != "peanut" {
		t.Fatalf("花生 in the sample: %d terms", g.Len())
	}
	c := tb.list(tb.terms, tb.chinese, tb.words, tb.find(tb.terms, &tb.termIdx, "coffe"))
	if c.Len() == 0 || c.At(0).Text != "咖啡" {
		t.Fatalf("coffe in the sample: %d words", c.Len())
	}
}

// TestNoNoiseTerms scans the whole embedded table for the dictionary's
// shorthand and bookkeeping words.
func TestNoNoiseTerms(t *testing.T) {
	t.Parallel()
	tb, err := parse(embedded)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(tb.terms); i += recordSize {
		s, _ := tb.text(tb.terms, i)
		switch s {
		case "sth", "sb", "lit", "fig", "abbr", "cl", "pr":
			t.Errorf("term %q in the table", s)
		}
		if strings.ContainsFunc(s, func(r rune) bool { return r >= 0x2e80 }) {
			t.Errorf("term %q has Chinese in it", s)
		}
	}
}

func TestEmptyTable(t *testing.T) {
	t.Parallel()
	tb := emptyTable()
	if n := tb.list(tb.words, tb.gloss, tb.terms, tb.find(tb.words, &tb.wordIdx, "花生")).Len(); n != 0 {
		t.Fatalf("花生 in the empty table: %d terms", n)
	}
	if got := tb.fold("記憶"); got != "記憶" {
		t.Fatalf("fold in the empty table: %q", got)
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	good := sample(t)
	corrupt := func(at int, b byte) string { return good[:at] + string([]byte{b}) + good[at+1:] }
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "bad magic"},
		{"magic", "ENGLEX2\n" + good[8:], "bad magic"},
		{"truncated", good[:len(good)-1], "header says"},
		{"longer", good + "x", "header says"},
		{"word count", corrupt(12, good[12]+1), "header says"},
		{"word text", corrupt(headerSize+3, 0xff), "word 0"},
		{"word order", corrupt(headerSize+recordSize+4, 0), "out of order"},
		{"ref count", corrupt(headerSize+6, 0xff), "refs out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parse(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("parse: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// FuzzParse: a damaged table is an error, never a panic, and a table that
// parses serves every lookup without one.
func FuzzParse(f *testing.F) {
	good := sample(f)
	f.Add(good)
	f.Add(good[:headerSize])
	f.Add(magic + strings.Repeat("\x00", headerSize-len(magic)))
	f.Fuzz(func(t *testing.T, data string) {
		tb, err := parse(data)
		if err != nil {
			return
		}
		for _, s := range []string{"花生", "咖啡", "coffe", "記憶", "乾燥", "a", "", "\xff"} {
			for _, ls := range []Terms{
				tb.list(tb.words, tb.gloss, tb.terms, tb.find(tb.words, &tb.wordIdx, s)),
				tb.list(tb.terms, tb.chinese, tb.words, tb.find(tb.terms, &tb.termIdx, s)),
			} {
				for x := range ls.All() {
					_ = x
				}
			}
			tb.prefix(tb.words, &tb.wordIdx, s, tb.maxRunes)
			tb.prefix(tb.foldw, &tb.foldIdx, s, len(s))
			tb.fold(s)
		}
	})
}
