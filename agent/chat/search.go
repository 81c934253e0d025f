package chat

import (
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"engram/memory"
)

// snippetRunes is about how much text a Match shows around the match.
const snippetRunes = 80

// Match is a chat title or message that matched a search.
type Match struct {
	ChatID  string
	Title   string
	Updated time.Time
	MsgID   string // the message that matched; "" when the title did
	Role    string // the message's role
	Snippet string // the message's text around the match, on one line
}

// searchIndex is what Search keeps between searches: the titles and
// messages of the chats as it indexed them, and the recall engine's index
// over them, brought up to date by each search for the chats that changed.
type searchIndex struct {
	mu    sync.Mutex // one search at a time
	ix    *memory.TextIndex
	chats map[string]*indexedChat
}

// indexedChat is a chat as the search index holds it.
type indexedChat struct {
	gen  uint64    // Store.gen of the chat when indexed
	file fileStamp // its file then, when its messages were only there
	info Info
	msgs []indexedMsg
}

// indexedMsg is a message as the search index holds it; low is its text in
// lower case, for phrase matches.
type indexedMsg struct {
	id, role, text, low string
}

// docID is the index's ID of message msgID of chat chatID ("" for its
// title); chat IDs hold no "/".
func docID(chatID, msgID string) string { return chatID + "/" + msgID }

// Search returns up to limit titles and messages for query: first those
// that contain it as typed (ignoring case and starting at a word), from the
// most recently updated chat on, in a chat its title first, then its
// messages in order; then those the recall engine ranks relevant (words
// stemmed, Chinese and English alike and across the bilingual lexicon), best
// first. An empty query matches nothing.
func (cs *Store) Search(query string, limit int) []Match {
	phrase := strings.ToLower(strings.Join(strings.Fields(query), " "))
	if phrase == "" || limit <= 0 {
		return nil
	}
	si := &cs.search
	si.mu.Lock()
	defer si.mu.Unlock()
	order := cs.refreshIndex()
	var out []Match
	seen := map[string]bool{}
	add := func(c *indexedChat, m *indexedMsg, at int) bool {
		match := Match{ChatID: c.info.ID, Title: c.info.Title, Updated: c.info.Updated}
		key := docID(c.info.ID, "")
		if m != nil {
			match.MsgID, match.Role, match.Snippet = m.id, m.role, snippet(m.text, at)
			key = docID(c.info.ID, m.id)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, match)
		}
		return len(out) >= limit
	}
	for _, c := range order {
		if _, ok := phraseAt(strings.ToLower(c.info.Title), c.info.Title, phrase); ok && add(c, nil, 0) {
			return out
		}
		for i := range c.msgs {
			m := &c.msgs[i]
			if at, ok := phraseAt(m.low, m.text, phrase); ok && add(c, m, at) {
				return out
			}
		}
	}
	for _, h := range si.ix.Search(query, limit+len(out)) {
		chatID, msgID, _ := strings.Cut(h.ID, "/")
		c := si.chats[chatID]
		if c == nil {
			continue
		}
		if msgID == "" {
			if add(c, nil, 0) {
				break
			}
			continue
		}
		i := slices.IndexFunc(c.msgs, func(m indexedMsg) bool { return m.id == msgID })
		if i >= 0 && add(c, &c.msgs[i], locate(c.msgs[i].text, h.Offset, h.Terms)) {
			break
		}
	}
	return out
}

// refreshIndex brings the search index up to date with the chats (under
// si.mu) and returns them, most recently updated first. A chat is read and
// re-indexed only when it changed since it was indexed. (Scrub changes tool
// records, which are not searched.)
func (cs *Store) refreshIndex() []*indexedChat {
	si := &cs.search
	infos := cs.List()
	cs.mu.Lock()
	gens := make(map[string]uint64, len(infos))
	var partial []string
	for _, info := range infos {
		gens[info.ID] = cs.gen[info.ID]
		if cs.partial[info.ID] {
			partial = append(partial, info.ID)
		}
	}
	cs.mu.Unlock()
	// A chat whose messages are only in its file is read from it: another
	// process may have written it since (Rescan may not have run yet).
	files := make(map[string]fileStamp, len(partial))
	for _, id := range partial {
		if fi, err := os.Stat(cs.path(id)); err == nil {
			files[id] = stampOf(fi)
		}
	}
	if si.ix == nil {
		si.ix, si.chats = memory.NewTextIndex(), map[string]*indexedChat{}
	}
	fresh := si.ix.Len() == 0
	var bulk []memory.Text // texts of an empty index, put at once
	order := make([]*indexedChat, 0, len(infos))
	for _, info := range infos {
		old := si.chats[info.ID]
		if old != nil && old.gen == gens[info.ID] && old.file == files[info.ID] && old.info.Title == info.Title &&
			old.info.Updated.Equal(info.Updated) {
			order = append(order, old)
			continue
		}
		c, err := cs.Get(info.ID)
		if err != nil {
			continue // deleted meanwhile, or unreadable: not found
		}
		next := &indexedChat{gen: gens[info.ID], file: files[info.ID], info: info}
		for _, m := range c.Messages {
			if m.ID == "" || strings.TrimSpace(m.Text) == "" {
				continue
			}
			next.msgs = append(next.msgs, indexedMsg{id: m.ID, role: m.Role, text: m.Text, low: strings.ToLower(m.Text)})
		}
		if fresh {
			if info.Title != "" {
				bulk = append(bulk, memory.Text{ID: docID(info.ID, ""), Text: info.Title})
			}
			for _, m := range next.msgs {
				bulk = append(bulk, memory.Text{ID: docID(info.ID, m.id), Text: m.text})
			}
		} else {
			si.reindex(old, next)
		}
		si.chats[info.ID] = next
		order = append(order, next)
	}
	if len(bulk) > 0 {
		si.ix.PutAll(bulk)
	}
	for id, c := range si.chats {
		if _, ok := gens[id]; !ok {
			si.reindex(c, &indexedChat{info: Info{ID: id}})
			delete(si.chats, id)
		}
	}
	return order
}

// reindex changes the index from chat old (nil: not indexed) to next: the
// messages gone are removed, the new and changed ones put.
func (si *searchIndex) reindex(old, next *indexedChat) {
	id := next.info.ID
	had := map[string]string{}
	if old != nil {
		for _, m := range old.msgs {
			had[m.id] = m.text
		}
		if old.info.Title != next.info.Title || next.info.Title == "" {
			si.ix.Delete(docID(id, ""))
		}
	}
	if next.info.Title != "" && (old == nil || old.info.Title != next.info.Title) {
		si.ix.Put(docID(id, ""), next.info.Title)
	}
	for _, m := range next.msgs {
		if text, ok := had[m.id]; !ok || text != m.text {
			si.ix.Put(docID(id, m.id), m.text)
		}
		delete(had, m.id)
	}
	for msgID := range had {
		si.ix.Delete(docID(id, msgID))
	}
}

// phraseAt reports whether low (text in lower case) holds phrase (lower case)
// at the start of a word, and the byte offset in text where it does.
func phraseAt(low, text, phrase string) (int, bool) {
	first, _ := utf8.DecodeRuneInString(phrase)
	wordy := isWordRune(first) && !isCJK(first)
	for from := 0; from < len(low); {
		j := strings.Index(low[from:], phrase)
		if j < 0 {
			return 0, false
		}
		j += from
		if prev, _ := utf8.DecodeLastRuneInString(low[:j]); !wordy || j == 0 || !isWordRune(prev) {
			// Folding may change the bytes of a rune but not how many
			// runes come before the match.
			return runeOffset(text, utf8.RuneCountInString(low[:j])), true
		}
		from = j + len(phrase)
	}
	return 0, false
}

// isWordRune reports whether r is part of a word.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// locate is the byte offset in text of the first word a ranked hit matched:
// its part starts at rune offset (Hit.Offset) and terms are the words of the
// query it matched ("coffee → 咖啡" for a translation). A word stemmed in
// the index ("running" for "run") is looked for by shorter and shorter
// prefixes; the part's start when none is found.
func locate(text string, offset int, terms []string) int {
	start := runeOffset(text, offset)
	best := -1
	for _, t := range terms {
		typed, matched, _ := strings.Cut(t, " → ")
		for _, w := range []string{matched, typed} {
			if at := findWord(text[start:], w); at >= 0 && (best < 0 || at < best) {
				best = at
			}
		}
	}
	if best < 0 {
		return start
	}
	return start + best
}

// findWord is the byte offset in s of w ignoring case, or of its longest
// prefix of at least three letters for a word of letters; -1 if none.
func findWord(s, w string) int {
	rs := []rune(strings.TrimSpace(w))
	if len(rs) == 0 {
		return -1
	}
	shortest := len(rs)
	if !slices.ContainsFunc(rs, isCJK) {
		shortest = min(len(rs), 3)
	}
	for n := len(rs); n >= shortest; n-- {
		if at := indexFold(s, string(rs[:n])); at >= 0 {
			return at
		}
	}
	return -1
}

// indexFold is the byte offset of the first w in s ignoring case, or -1.
func indexFold(s, w string) int {
	for i := range s {
		if hasPrefixFold(s[i:], w) {
			return i
		}
	}
	return -1
}

// hasPrefixFold reports whether s starts with w ignoring case.
func hasPrefixFold(s, w string) bool {
	for _, r := range w {
		c, n := utf8.DecodeRuneInString(s)
		if n == 0 || c != r && unicode.ToLower(c) != unicode.ToLower(r) {
			return false
		}
		s = s[n:]
	}
	return true
}

// runeOffset is the byte offset of the n-th rune of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// snippet is text around byte offset at, on one line, with "…" where it
// was cut.
func snippet(text string, at int) string {
	start := runeOffset(text[:at], max(0, utf8.RuneCountInString(text[:at])-snippetRunes/3))
	end := at + runeOffset(text[at:], snippetRunes)
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
