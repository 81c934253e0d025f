package lexicon_test

import (
	"slices"
	"testing"

	"engram/memory/internal/lexicon"
)

func texts(ts lexicon.Terms) []string {
	var out []string
	for t := range ts.All() {
		out = append(out, t.Text)
	}
	return out
}

func TestLoad(t *testing.T) {
	t.Parallel()
	if err := lexicon.Load(); err != nil {
		t.Fatal(err)
	}
	if n := lexicon.MaxWordRunes(); n < 4 || n > 64 {
		t.Fatalf("MaxWordRunes = %d", n)
	}
}

func TestGlosses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		zh    string
		first string   // best translation
		also  []string // among the translations
	}{
		{"过敏", "allerg", []string{"hypersensit"}},
		{"花生", "peanut", nil},
		{"咖啡", "coffe", nil},
		{"记忆", "rememb", []string{"recal", "memori"}},
		{"电脑", "comput", nil},
		{"外卖", "takeout", []string{"deliveri"}},
	} {
		ts := lexicon.Glosses(tc.zh)
		got := texts(ts)
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("Glosses(%s) = %q, want %q first", tc.zh, got, tc.first)
			continue
		}
		for i := range ts.Len() {
			if w := ts.At(i).Weight; w <= 0 || w > 1 || i > 0 && w > ts.At(i-1).Weight {
				t.Errorf("Glosses(%s): weight %d is %v after %v", tc.zh, i, w, ts.At(i-1).Weight)
			}
		}
		for _, a := range tc.also {
			if !slices.Contains(got, a) {
				t.Errorf("Glosses(%s) = %q, want %q among them", tc.zh, got, a)
			}
		}
	}
}

// TestGlossesWeight: weights say how well a word is translated, not only
// the order of its translations.
func TestGlossesWeight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		zh       string
		min, max float32 // bounds of the best weight
	}{
		{"花生", 1, 1},     // "peanut"
		{"过敏", 1, 1},     // "(medicine) allergic; hypersensitive", first sense
		{"外卖", 0.6, 0.8}, // best is "takeout (business)", the second sense
		{"的", 0, 0.5},    // the particle's senses match nothing; "taxi" is a later reading
	} {
		ts := lexicon.Glosses(tc.zh)
		if ts.Len() == 0 {
			t.Errorf("Glosses(%s) is empty", tc.zh)
			continue
		}
		if w := ts.At(0).Weight; w < tc.min || w > tc.max {
			t.Errorf("Glosses(%s): best %s weighs %v, want %v..%v", tc.zh, ts.At(0).Text, w, tc.min, tc.max)
		}
	}
}

func TestGlossesNoise(t *testing.T) {
	t.Parallel()
	// 张 is also "surname Zhang", 伊藤 "Itō or Itoh, Japanese surname"; 了's
	// first reading is a grammatical note in brackets.
	for _, zh := range []string{"张", "伊藤", "了", "行", "干", "一下儿"} {
		for _, term := range texts(lexicon.Glosses(zh)) {
			switch term {
			case "surnam", "zhang", "variant", "old", "see", "classifi", "marker", "gan", "qian":
				t.Errorf("Glosses(%s) has noise term %q", zh, term)
			}
		}
	}
	// 㐅 is only "old variant of 五[wu3]", 万俟 only "two-character surname
	// Moqi", 一下儿 only "erhua form of 一下[yi1 xia4]".
	for _, zh := range []string{"㐅", "万俟", "一下儿"} {
		if !lexicon.IsWord(zh) || lexicon.Glosses(zh).Len() != 0 {
			t.Errorf("%s: IsWord %v, %d glosses; want a word with none", zh, lexicon.IsWord(zh), lexicon.Glosses(zh).Len())
		}
	}
}

func TestGlossesMissing(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "coffee", "咖啡咖啡咖啡", "\xff", "記憶"} {
		if n := lexicon.Glosses(s).Len(); n != 0 {
			t.Errorf("Glosses(%q) has %d terms, want none", s, n)
		}
	}
}

func TestChinese(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ en, first string }{
		{"coffe", "咖啡"},
		{"peanut", "花生"},
		{"allerg", "过敏"},
		{"takeout", "外卖"},
		{"friend", "朋友"},
	} {
		ts := lexicon.Chinese(tc.en)
		got := texts(ts)
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("Chinese(%s) = %q, want %q first", tc.en, got, tc.first)
		}
		if ts.Len() > 8 {
			t.Errorf("Chinese(%s) has %d words, want at most 8", tc.en, ts.Len())
		}
	}
	if n := lexicon.Chinese("coffee").Len(); n != 0 {
		t.Errorf("Chinese(coffee) (not an index term) has %d words", n)
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"記憶", "记忆"},
		{"咖啡", "咖啡"},
		{"我對花生過敏", "我对花生过敏"},
		{"乾燥的頭髮", "干燥的头发"}, // 乾 alone is ambiguous (乾隆); the word decides
		{"乾隆", "乾隆"},
		{"著作", "著作"}, // 著 is simplified too
		{"coffee 咖啡 記憶!", "coffee 咖啡 记忆!"},
		{"", ""},
		{"記\xff憶", "记\xff忆"},
	} {
		if got := lexicon.Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want rune }{
		{'記', '记'}, {'髮', '发'}, {'记', '记'}, {'a', 'a'}, {'乾', '乾'},
	} {
		if got := lexicon.FoldRune(tc.in); got != tc.want {
			t.Errorf("FoldRune(%c) = %c, want %c", tc.in, got, tc.want)
		}
	}
}

func TestSegment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"我对花生过敏", []string{"我", "对", "花生", "过敏"}},
		{"点外卖要注意什么", []string{"点", "外卖", "要", "注意", "什么"}},
		{"咖啡", []string{"咖啡"}},
		{"", nil},
		{"a咖啡", []string{"a", "咖啡"}},
	} {
		if got := lexicon.Segment(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Segment(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if n := lexicon.Match("花生过敏"); n != len("花生") {
		t.Errorf("Match(花生过敏) = %d, want %d", n, len("花生"))
	}
	for _, s := range []string{"", "abc", "\xff"} {
		if n := lexicon.Match(s); n != 0 {
			t.Errorf("Match(%q) = %d, want 0", s, n)
		}
	}
}

// TestLookupsDoNotAllocate: recall calls these for every query word.
func TestLookupsDoNotAllocate(t *testing.T) {
	lexicon.Load()
	var sink float32
	for name, f := range map[string]func(){
		"Glosses": func() {
			for x := range lexicon.Glosses("过敏").All() {
				sink += x.Weight
			}
		},
		"Chinese": func() { sink += lexicon.Chinese("peanut").At(0).Weight },
		"Match":   func() { sink += float32(lexicon.Match("我对花生过敏")) },
		"Fold":    func() { sink += float32(len(lexicon.Fold("我对花生过敏"))) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
	_ = sink
}

func FuzzSegment(f *testing.F) {
	for _, s := range []string{"我对花生过敏", "乾燥的頭髮", "mixed 中文 text", "\xff\xfe", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs := lexicon.Segment(s)
		var joined string
		for _, g := range segs {
			if g == "" {
				t.Fatalf("Segment(%q) has an empty segment", s)
			}
			joined += g
		}
		if joined != s {
			t.Fatalf("Segment(%q) = %q, does not join back", s, segs)
		}
		if n := lexicon.Match(s); n < 0 || n > len(s) {
			t.Fatalf("Match(%q) = %d", s, n)
		}
		lexicon.Glosses(s)
		lexicon.Chinese(s)
		if f := lexicon.Fold(s); len([]rune(f)) != len([]rune(s)) {
			t.Fatalf("Fold(%q) = %q changed the number of runes", s, f)
		}
	})
}

func TestConcurrentLookups(t *testing.T) {
	t.Parallel()
	done := make(chan []string)
	for range 4 {
		go func() {
			var got []string
			for range 50 {
				got = lexicon.Segment(lexicon.Fold("我對花生過敏"))
				lexicon.Glosses("花生")
				lexicon.Chinese("coffe")
			}
			done <- got
		}()
	}
	for range 4 {
		if got := <-done; !slices.Equal(got, []string{"我", "对", "花生", "过敏"}) {
			t.Errorf("Segment(Fold(我對花生過敏)) = %q", got)
		}
	}
}
