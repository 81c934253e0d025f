package memory

import (
	"slices"
	"strings"
)

// searchCompletions is how many words the word being typed stands for at
// most.
const searchCompletions = 8

// Search ranks the live entries for a query a person types into a search
// box: the inspector's, and engramctl memory search. The query's last word,
// unless a space follows it, is taken as still being typed and stands for
// the words of the store that it starts (see Complete), so "rsyn" finds
// rsync and rsyncd; the query is then recalled as usual (see Recall), with
// no history, at most k hits (DefaultTopK when k ≤ 0). Leading spaces are
// ignored; a query of spaces only finds nothing. A query of more than
// semanticWords words is also searched by meaning when the store has an
// embedder; a word or two (a name, a word still being typed) only by its
// words, which a person searching for it means. Only what matches is
// listed: a hit must match a word of the query (or its translation) or,
// searched by meaning, be near it; the entries recall adds for their
// context alone (saved with a match) are left out.
func (s *Store) Search(query string, k int) []Hit {
	q := strings.TrimLeft(query, " \t")
	if strings.TrimSpace(q) == "" {
		return nil
	}
	opts := RecallOptions{K: k}
	if !SearchesByMeaning(q) {
		opts.Semantic = -1
	}
	hits := s.Recall(s.expandQuery(q), nil, opts)
	return slices.DeleteFunc(hits, func(h Hit) bool { return len(h.Terms) == 0 && h.Meaning == 0 })
}

// SearchesByMeaning reports whether Search ranks query by its meaning too
// (when the store has an embedder): a query of more than semanticWords
// words. A caller can leave the vectors uncomputed for one that is not.
func SearchesByMeaning(query string) bool {
	return queryWords(strings.TrimSpace(query)) > semanticWords
}

// semanticWords is the most words a search query may have and still be
// searched by its words only.
const semanticWords = 2

// queryWords counts the words of a query: its space-separated fields, a
// run of Chinese counting one word for every two characters.
func queryWords(q string) int {
	n := 0
	for _, f := range strings.Fields(q) {
		han := 0
		for _, r := range f {
			if r >= 0x2e80 {
				han++
			}
		}
		n += max(1, (han+1)/2)
	}
	return n
}

// expandQuery completes the word being typed, the query's last when it
// does not end in a space, with the words of the store that it starts: so
// "rsyn" searches for rsync (and rsyncd), ranked as usual. A query that
// ends in a space, or whose last word starts none, is searched as typed.
func (s *Store) expandQuery(q string) string {
	if q == "" || strings.HasSuffix(q, " ") {
		return q
	}
	cut := strings.LastIndexAny(q, " \t") + 1
	last := q[cut:]
	if !latinWord(last) {
		return q
	}
	words := s.Complete(last, searchCompletions)
	if len(words) == 0 {
		return q
	}
	return q[:cut] + strings.Join(words, " ")
}

// latinWord reports whether s is a word the store's dictionary completes:
// letters, digits and joiners, with no Chinese.
func latinWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x2e80 {
			return false
		}
	}
	return true
}
