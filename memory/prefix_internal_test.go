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

// A bulk load (the words from the index's own tokenizing, on every core)
// and puts one at a time make the same dictionary as the plain way, and
// deletes leave it as if the deleted entries had never been put.
func TestWordDictBulkEqualsPuts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("乾燥的部署Rsync和HTTPServer日志", 40) + " tail words here"
	texts := []string{
		"Deploy the API with rsync to the NAS; rsyncd runs there",
		"ÉCOLE Straße ÄRGER naïve Ｐｙｔｈｏｎ3.12 don't user's",
		"部署 uses Rsync too, 咖啡 and coffee, 乾燥 and 後來",
		"HTTPServer handles camelCase and MAX_HISTORY_CHARS",
		long,
		strings.Repeat("Rsync backups run nightly at 02:00 on the NAS, restic weekly. ", 12),
	}
	var es []Entry
	for i := range 3000 {
		es = append(es, Entry{ID: fmt.Sprintf("e%04d", i), Kind: KindFact, Text: fmt.Sprintf("%s word%d Word%d", texts[i%len(texts)], i%97, i%13)})
	}
	bulk := NewEntryIndex()
	bulk.PutAll(es)
	one := NewEntryIndex()
	for _, e := range es {
		one.Put(e)
	}
	want := wordCounts(es)
	for name, x := range map[string]*EntryIndex{"bulk": bulk, "one at a time": one} {
		got, sorted := x.words.held()
		if !maps.Equal(got, want) || !sorted {
			t.Errorf("%s: %d words (sorted %v), want %d", name, len(got), sorted, len(want))
		}
	}
	for _, e := range es[:2000] {
		bulk.Delete(e.ID)
	}
	again := Entry{ID: "again", Kind: KindFact, Text: es[0].Text}
	bulk.Put(again)
	rest := append([]Entry{again}, es[2000:]...)
	if got, sorted := bulk.words.held(); !maps.Equal(got, wordCounts(rest)) || !sorted {
		t.Errorf("after deletes: %d words (sorted %v), want %d", len(got), sorted, len(wordCounts(rest)))
	}
	fresh := NewEntryIndex()
	fresh.PutAll(rest)
	for _, prefix := range []string{"w", "word1", "rsy", "éc", "str", "max", "ｐ", "hand", "tai"} {
		if got, want := bulk.Complete(prefix, 5), fresh.Complete(prefix, 5); !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("Complete(%q) = %q, want %q", prefix, got, want)
		}
	}
}
