package memory

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// wordCounts is what a dictionary must hold of entries, found the plain
// way: each entry's distinct words, lowercased by strings.ToLower.
func wordCounts(es []Entry) map[string]int32 {
	var d wordDict
	counts := map[string]int32{}
	for _, e := range es {
		var words []string
		d.tok.Words(e.Text, func(start, end int) {
			if w := strings.ToLower(e.Text[start:end]); !slices.Contains(words, w) {
				words = append(words, w)
			}
		})
		for _, w := range words {
			counts[w]++
		}
	}
	return counts
}

// held is what d holds: each word and how many entries hold it, and
// whether its sorted list is that of those words.
func (d *wordDict) held() (map[string]int32, bool) {
	out := map[string]int32{}
	for id, w := range d.words {
		if d.count[id] > 0 {
			out[w] = d.count[id]
		}
	}
	return out, slices.Equal(d.sorted, slices.Sorted(maps.Keys(out)))
}

// The bulk load (its words found by several goroutines) and puts one at a
// time make the same dictionary, and deletes leave it as if the deleted
// entries had never been put.
func TestWordDictBulkEqualsPuts(t *testing.T) {
	t.Parallel()
	texts := []string{
		"Deploy the API with rsync to the NAS; rsyncd runs there",
		"ÉCOLE Straße ÄRGER naïve Ｐｙｔｈｏｎ3.12 don't user's",
		"部署 uses Rsync too, 咖啡 and coffee",
		"HTTPServer handles camelCase and MAX_HISTORY_CHARS",
	}
	var es []Entry
	for i := range 3000 {
		es = append(es, Entry{ID: fmt.Sprintf("e%04d", i), Text: fmt.Sprintf("%s word%d Word%d", texts[i%len(texts)], i%97, i%13)})
	}
	bulk := newWordDict()
	bulk.putAll(es)
	one := newWordDict()
	for _, e := range es {
		one.put(e.ID, e.Text)
	}
	want := wordCounts(es)
	for name, d := range map[string]*wordDict{"bulk": bulk, "one at a time": one} {
		got, sorted := d.held()
		if !maps.Equal(got, want) || !sorted {
			t.Errorf("%s: %d words (sorted %v), want %d", name, len(got), sorted, len(want))
		}
	}
	for _, e := range es[:2000] {
		bulk.delete(e.ID)
	}
	bulk.put("again", es[0].Text)
	rest := append([]Entry{{ID: "again", Text: es[0].Text}}, es[2000:]...)
	if got, sorted := bulk.held(); !maps.Equal(got, wordCounts(rest)) || !sorted {
		t.Errorf("after deletes: %d words (sorted %v), want %d", len(got), sorted, len(wordCounts(rest)))
	}
	fresh := newWordDict()
	fresh.putAll(rest)
	for _, prefix := range []string{"w", "word1", "rsy", "éc", "str", "max", "ｐ", "hand"} {
		if got, want := bulk.complete(prefix, 5), fresh.complete(prefix, 5); !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("complete(%q) = %q, want %q", prefix, got, want)
		}
	}
}
