package index

import (
	"slices"
	"strings"
	"testing"
	"time"

	"engram/memory/internal/randtext"
)

// xlIndex indexes texts as docs d0, d1, … created an hour apart (no two
// share a context).
func xlIndex(texts ...string) *Index {
	ix := New()
	for i, text := range texts {
		at := randtext.Base.Add(time.Duration(i) * time.Hour)
		ix.Put(Doc{ID: "d" + string(rune('0'+i)), Text: text, Created: at, Updated: at})
	}
	return ix
}

func xlSearch(t *testing.T, ix *Index, query string, history ...string) []Hit {
	t.Helper()
	hits := ix.Search(query, history, Options{K: 5})
	if len(hits) == 0 {
		t.Fatalf("Search(%q) found nothing", query)
	}
	return hits
}

func TestCrossLingual(t *testing.T) {
	t.Parallel()
	english := xlIndex(
		"The user is allergic to peanuts.",
		"The user likes hiking in the mountains on weekends.",
		"Weekly team meeting on Monday morning.",
		"The user drinks a coffee every morning before work.",
	)
	chinese := xlIndex(
		"用户对花生过敏。",
		"用户周末喜欢去山里徒步。",
		"每周一早上开团队例会。",
		"用户每天早上上班前喝一杯咖啡。",
	)
	for _, tc := range []struct {
		name  string
		ix    *Index
		query string
		want  string
		term  string // one of the explained terms of the best hit
	}{
		{"zh question, en memory", english, "点外卖要注意我对花生过敏吗？", "d0", "花生 → peanuts"},
		{"zh question, en memory (2)", english, "这周末去爬山怎么样", "d1", "爬山 → hiking"},
		{"en question, zh memory", chinese, "Does the user have a peanut allergy?", "d0", "peanut → 花生"},
		{"en question, zh memory (2)", chinese, "when is the weekly team meeting", "d2", "team → 队"},
		{"mixed question, en memory", english, "我每天早上都喝 coffee 吗", "d3", "coffee"},
		{"mixed question, zh memory", chinese, "我每天早上都喝 coffee 吗", "d3", "coffee → 咖啡"},
		{"traditional question, en memory", english, "我對花生過敏", "d0", "過敏 → allergic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := xlSearch(t, tc.ix, tc.query)
			if hits[0].ID != tc.want {
				t.Fatalf("Search(%q) = %v first, want %s", tc.query, hits[0].ID, tc.want)
			}
			if !slices.Contains(hits[0].Terms, tc.term) {
				t.Errorf("Terms = %q, want %q among them", hits[0].Terms, tc.term)
			}
		})
	}
}

// A question matched well in its own language keeps its best match first
// in a store of both languages, and the other language's version follows.
func TestCrossLingualKeepsSameLanguageFirst(t *testing.T) {
	t.Parallel()
	ix := xlIndex(
		"用户对花生过敏。",
		"The user is allergic to peanuts.",
		"The user likes hiking in the mountains.",
		"用户喜欢去山里徒步。",
	)
	for _, tc := range []struct{ query, first, second string }{
		{"is the user allergic to peanuts", "d1", "d0"},
		{"用户对花生过敏吗", "d0", "d1"},
	} {
		hits := ix.Search(tc.query, nil, Options{K: 5, NoCutoff: true})
		if len(hits) < 2 || hits[0].ID != tc.first || hits[1].ID != tc.second {
			t.Errorf("Search(%q) = %v, want %s then %s", tc.query, hits, tc.first, tc.second)
		}
	}
}

// Translation comes from the history too, as the query's own words do.
func TestCrossLingualHistory(t *testing.T) {
	t.Parallel()
	ix := xlIndex("The user is allergic to peanuts.", "The user likes hiking in the mountains.")
	hits := xlSearch(t, ix, "那我该注意什么？", "我对花生过敏")
	if hits[0].ID != "d0" || !slices.Contains(hits[0].Terms, "花生 → peanuts") {
		t.Errorf("Search = %+v, want d0 matched by 花生 → peanuts", hits[0])
	}
}

func TestTraditionalAndSimplified(t *testing.T) {
	t.Parallel()
	ix := xlIndex("记忆的数据存在本地。", "我喜歡喝咖啡。", "今天天气很好。")
	for _, tc := range []struct{ query, want, term string }{
		{"記憶在哪裡", "d0", "記憶"}, // traditional finds simplified, shown as typed
		{"我喜欢", "d1", "喜欢"},   // and simplified finds traditional
	} {
		hits := xlSearch(t, ix, tc.query)
		if hits[0].ID != tc.want || !slices.Contains(hits[0].Terms, tc.term) {
			t.Errorf("Search(%q) = %+v, want %s matched by %s", tc.query, hits[0], tc.want, tc.term)
		}
	}
}

// A fold that changes a rune's UTF-8 length (鵟 → 𫛭) still shows the
// words as typed.
func TestFoldedTextSpan(t *testing.T) {
	t.Parallel()
	f := foldText("看鵟飛")
	if f.text == f.orig {
		t.Fatalf("foldText(%q) changed nothing", f.orig)
	}
	start, end := len("看"), len(f.text)
	if got := f.span(int32(start), int32(end)); got != "鵟飛" {
		t.Errorf("span = %q, want 鵟飛 (folded text %q)", got, f.text)
	}
}

// FuzzSearch searches a small index of both languages with any query and
// history: no panic, at most K hits, and every word a hit is explained by
// (before " → " for a translation) is a piece of the query or history as
// typed.
func FuzzSearch(f *testing.F) {
	f.Add("我對花生過敏", "peanut allergy")
	f.Add("看鵟飛 記憶", "\xff記\xe8")
	f.Add("Does the user drink coffee", "")
	ix := xlIndex(
		"The user is allergic to peanuts.",
		"用户每天早上喝一杯咖啡。",
		"記憶的資料存在本地 memory stays local",
		"Weekly team meeting on Monday morning.",
	)
	f.Fuzz(func(t *testing.T, query, hist string) {
		history := []string{hist}
		for _, cut := range []bool{false, true} {
			hits := ix.Search(query, history, Options{K: 3, NoCutoff: cut})
			if len(hits) > 3 {
				t.Fatalf("%d hits, want at most 3", len(hits))
			}
			for _, h := range hits {
				for _, term := range h.Terms {
					typed, _, _ := strings.Cut(term, " → ")
					if !strings.Contains(query, typed) && !strings.Contains(hist, typed) &&
						!strings.Contains(strings.ToLower(query+" "+hist), strings.ToLower(typed)) {
						t.Fatalf("hit %s explained by %q, not in the query %q or history %q", h.ID, typed, query, hist)
					}
				}
			}
		}
	})
}
