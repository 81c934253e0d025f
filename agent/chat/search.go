package chat

import (
	"strings"
	"time"
	"unicode/utf8"
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

// Search returns up to limit titles and messages that contain every
// word of query (ignoring case), from the most recently updated chat on;
// in a chat its title first, then its messages in order. An empty query
// matches nothing.
func (cs *Store) Search(query string, limit int) []Match {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 || limit <= 0 {
		return nil
	}
	var out []Match
	for _, info := range cs.List() {
		c, err := cs.Get(info.ID)
		if err != nil {
			continue // deleted meanwhile
		}
		if _, ok := matchAll(c.Title, words); ok {
			out = append(out, Match{ChatID: c.ID, Title: c.Title, Updated: c.Updated})
		}
		for _, m := range c.Messages {
			if len(out) >= limit {
				return out
			}
			if at, ok := matchAll(m.Text, words); ok {
				out = append(out, Match{ChatID: c.ID, Title: c.Title, Updated: c.Updated, MsgID: m.ID,
					Role: m.Role, Snippet: snippet(m.Text, at)})
			}
		}
		if len(out) >= limit {
			return out[:limit]
		}
	}
	return out
}

// matchAll reports whether text holds every word (lower case) ignoring
// case, and the byte offset in text of the first word.
func matchAll(text string, words []string) (int, bool) {
	low := strings.ToLower(text)
	at := -1
	for i, w := range words {
		j := strings.Index(low, w)
		if j < 0 {
			return 0, false
		}
		if i == 0 {
			at = j
		}
	}
	// Folding may change the bytes of a rune but not how many runes
	// come before the match.
	return runeOffset(text, utf8.RuneCountInString(low[:at])), true
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
