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
// Each word is held once, and an entry holds the numbers of its words: a
// store of 100,000 memories has some three million words but only tens
// of thousands of distinct ones.
type wordDict struct {
	tok    analysis.Tokenizer
	buf    []byte
	ids    map[string]int32 // word → its number
	words  []string         // by number; "" for a number free for reuse
	count  []int32          // by number: how many entries hold the word
	free   []int32
	sorted []string
	byID   map[string]entryWords
	// The entry add counted each word for last (by number), and that
	// entry's count.
	seenAt []uint32
	stamp  uint32
}

// entryWords is what the dictionary holds of one entry.
type entryWords struct {
	text string
	ids  []int32
}

func newWordDict() *wordDict {
	return &wordDict{ids: make(map[string]int32), byID: make(map[string]entryWords)}
}

// intern returns the number of word, giving it one if it has none.
func (d *wordDict) intern(word []byte) int32 {
	if id, ok := d.ids[string(word)]; ok {
		return id
	}
	w := string(word)
	var id int32
	if n := len(d.free); n > 0 {
		id, d.free = d.free[n-1], d.free[:n-1]
		d.words[id], d.count[id] = w, 0
	} else {
		id = int32(len(d.words))
		d.words, d.count = append(d.words, w), append(d.count, 0)
	}
	d.ids[w] = id
	return id
}

// put indexes the words of entry id, replacing those of its previous text.
func (d *wordDict) put(id, text string) {
	if old, ok := d.byID[id]; ok && old.text == text {
		return
	}
	d.add(id, text, d.textWords(text), true)
}

// putBulk is put for a bulk load, with the entry's words (lowercased,
// perhaps repeated) when ok, or else found here: the sorted list is made by
// sortWords once the load is done.
func (d *wordDict) putBulk(id, text string, words [][]byte, ok bool) {
	if !ok {
		words = d.textWords(text)
	}
	d.add(id, text, words, false)
}

// textWords returns the words of text, lowercased, in d.buf.
func (d *wordDict) textWords(text string) [][]byte {
	var ends []int32
	d.buf, ends = d.tok.AppendWords(text, d.buf[:0], nil)
	words := make([][]byte, len(ends))
	from := int32(0)
	for i, end := range ends {
		words[i], from = d.buf[from:end], end
	}
	return words
}

// add indexes entry id with its words, replacing what it held before;
// sorted keeps the sorted list up to date (otherwise sortWords makes it).
func (d *wordDict) add(id, text string, words [][]byte, sorted bool) {
	d.delete(id)
	d.stamp++
	ids := make([]int32, 0, len(words))
	for _, word := range words {
		w := d.intern(word)
		if int(w) >= len(d.seenAt) {
			d.seenAt = append(d.seenAt, make([]uint32, int(w)+1-len(d.seenAt))...)
		}
		if d.seenAt[w] == d.stamp {
			continue
		}
		d.seenAt[w] = d.stamp
		ids = append(ids, w)
		d.count[w]++
		if sorted && d.count[w] == 1 {
			at, _ := slices.BinarySearch(d.sorted, d.words[w])
			d.sorted = slices.Insert(d.sorted, at, d.words[w])
		}
	}
	d.byID[id] = entryWords{text: text, ids: ids}
}

// sortWords ends a bulk load: the words held, sorted.
func (d *wordDict) sortWords() {
	d.sorted = d.sorted[:0]
	for id, w := range d.words {
		if d.count[id] > 0 {
			d.sorted = append(d.sorted, w)
		}
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
	for _, w := range old.ids {
		d.count[w]--
		if d.count[w] > 0 {
			continue
		}
		word := d.words[w]
		if at, found := slices.BinarySearch(d.sorted, word); found {
			d.sorted = slices.Delete(d.sorted, at, at+1)
		}
		delete(d.ids, word)
		d.words[w] = ""
		d.free = append(d.free, w)
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
		cands = append(cands, cand{w, d.count[d.ids[w]]})
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
