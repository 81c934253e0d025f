package memory

import (
	"cmp"
	"slices"
	"strings"

	"engram/memory/internal/analysis"
)

// maxCompletionScan bounds how many dictionary words one Complete looks at
// (a one-letter prefix of a large vocabulary), so it stays fast; the words
// it returns are then the most used of those.
const maxCompletionScan = 1024

// wordDict is the prefix dictionary of an EntryIndex: the distinct words
// of the indexed entries (lowercased, as written, not stemmed; stopwords
// and CJK left out), sorted so the words that start with a prefix are
// found by binary search, with the number of entries holding each. It is
// kept up to date by the EntryIndex's Put and Delete, under its lock.
type wordDict struct {
	tok    analysis.Tokenizer
	sorted []string
	count  map[string]int32
	byID   map[string]entryWords
}

// entryWords is what the dictionary holds of one entry.
type entryWords struct {
	text  string
	words []string
}

func newWordDict() *wordDict {
	return &wordDict{count: make(map[string]int32), byID: make(map[string]entryWords)}
}

// wordsOf returns the distinct words of text.
func (d *wordDict) wordsOf(text string) []string {
	var words []string
	d.tok.Words(text, func(start, end int) {
		w := strings.ToLower(text[start:end])
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	})
	return words
}

// put indexes the words of entry id, replacing those of its previous text.
func (d *wordDict) put(id, text string) {
	if old, ok := d.byID[id]; ok {
		if old.text == text {
			return
		}
		d.delete(id)
	}
	words := d.wordsOf(text)
	d.byID[id] = entryWords{text: text, words: words}
	for _, w := range words {
		d.count[w]++
		if d.count[w] == 1 {
			at, _ := slices.BinarySearch(d.sorted, w)
			d.sorted = slices.Insert(d.sorted, at, w)
		}
	}
}

// putAll indexes many entries; into an empty dictionary the words are
// sorted once at the end.
func (d *wordDict) putAll(es []Entry) {
	if len(d.byID) > 0 {
		for _, e := range es {
			d.put(e.ID, e.Text)
		}
		return
	}
	for _, e := range es {
		if _, dup := d.byID[e.ID]; dup {
			d.delete(e.ID)
		}
		words := d.wordsOf(e.Text)
		d.byID[e.ID] = entryWords{text: e.Text, words: words}
		for _, w := range words {
			d.count[w]++
		}
	}
	d.sorted = d.sorted[:0]
	for w := range d.count {
		d.sorted = append(d.sorted, w)
	}
	slices.Sort(d.sorted)
}

// delete removes the words of entry id.
func (d *wordDict) delete(id string) {
	old, ok := d.byID[id]
	if !ok {
		return
	}
	delete(d.byID, id)
	for _, w := range old.words {
		d.count[w]--
		if d.count[w] > 0 {
			continue
		}
		delete(d.count, w)
		if at, found := slices.BinarySearch(d.sorted, w); found {
			d.sorted = slices.Delete(d.sorted, at, at+1)
		}
	}
}

// complete returns at most n words that start with prefix, those held by
// the most entries first (then the shorter, then in order).
func (d *wordDict) complete(prefix string, n int) []string {
	prefix = strings.ToLower(prefix)
	if prefix == "" || n <= 0 {
		return nil
	}
	at, _ := slices.BinarySearch(d.sorted, prefix)
	type cand struct {
		w string
		n int32
	}
	var cands []cand
	for _, w := range d.sorted[at:] {
		if !strings.HasPrefix(w, prefix) || len(cands) == maxCompletionScan {
			break
		}
		cands = append(cands, cand{w, d.count[w]})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(len(a.w), len(b.w))
	})
	out := make([]string, min(n, len(cands)))
	for k := range out {
		out[k] = cands[k].w
	}
	return out
}

// Complete returns at most n words of the indexed entries that start with
// prefix (case is ignored), the most common first: the words a search for
// a word still being typed can mean. Words are as written, lowercased, not
// stemmed; stopwords and Chinese are not completed (a Chinese query
// already matches by its characters).
func (x *EntryIndex) Complete(prefix string, n int) []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.words.complete(prefix, n)
}

// Complete returns at most n words of the store's live entries that start
// with prefix, the most common first (see EntryIndex.Complete). It looks
// them up in the store's index, built on first use like Recall's.
func (s *Store) Complete(prefix string, n int) []string {
	return s.searchIndex().Complete(prefix, n)
}
