package chat

import (
	"strings"
	"unicode"
)

// Title lengths, in units: an English (space-separated) word is one unit, a
// Chinese or Japanese character half of one, so a title holds about six
// words or twelve characters.
const (
	titleUnits = 12 // half units: six words
	// A sentence (a clause) ends the title only when what comes before it
	// is at least this long, so "Hi! Can you…" is not titled "Hi".
	sentenceUnits = 4
	clauseUnits   = 6
	// maxTitleUnits caps a title the model wrote (asked for six words).
	maxTitleUnits = 20
)

// newChatTitle is the title of a chat with no message yet.
const newChatTitle = "New chat"

// TitleFrom makes a chat's first title from its first message: the start of
// its first sentence or clause, about six words or twelve Chinese
// characters, trailing punctuation trimmed, "…" where it was cut.
func TitleFrom(text string) string {
	line := firstLine(text)
	if line == "" {
		return newChatTitle
	}
	if t := cutTitle(line, titleUnits, true); t != "" {
		return t
	}
	return newChatTitle
}

// CleanTitle makes a title a model wrote fit to show: its first line, without
// a "Title:" label, quotes, Markdown marks or trailing punctuation, spaces
// collapsed, at most about ten words. It returns "" when nothing is left.
func CleanTitle(text string) string {
	line := firstLine(text)
	for _, label := range []string{"title:", "title：", "标题:", "标题：", "標題:", "標題："} {
		if len(line) >= len(label) && strings.EqualFold(line[:len(label)], label) {
			line = strings.TrimSpace(line[len(label):])
		}
	}
	line = strings.TrimFunc(line, func(r rune) bool { return strings.ContainsRune(titleQuotes, r) || isTrailing(r) })
	line = strings.Join(strings.Fields(line), " ")
	return cutTitle(line, maxTitleUnits, false)
}

// titleQuotes are the marks a model may wrap a title in.
const titleQuotes = "\"'`“”‘’「」『』《》«»*_#"

// firstLine is the first line of text that has something on it, trimmed,
// with its spaces collapsed.
func firstLine(text string) string {
	for line := range strings.Lines(text) {
		if f := strings.Fields(line); len(f) > 0 {
			return strings.Join(f, " ")
		}
	}
	return ""
}

// cutTitle is line (one line, spaces collapsed) cut at units half units; with
// sentences it also ends at the first sentence or clause long enough. Trailing
// punctuation is trimmed and "…" added where the line was cut.
func cutTitle(line string, units int, sentences bool) string {
	used := 0 // half units so far
	inWord := false
	rs := []rune(line)
	for i, r := range rs {
		switch {
		case unicode.IsSpace(r):
			inWord = false
			continue
		case isCJK(r):
			inWord = false
			used++
		case !inWord && !unicode.IsPunct(r):
			inWord = true
			used += 2
		}
		if used > units {
			return trimTitle(string(rs[:i])) + "…"
		}
		if sentences && endsPart(rs, i, used) {
			if t := trimTitle(string(rs[:i+1])); t != "" {
				return t
			}
		}
	}
	return trimTitle(line)
}

// endsPart reports whether the rune at i ends a sentence or clause after which
// a title of used half units may stop: a full stop followed by a space (not
// "3.5" or "main.go"), or a Chinese one.
func endsPart(rs []rune, i, used int) bool {
	r := rs[i]
	next := i+1 == len(rs) || unicode.IsSpace(rs[i+1])
	switch r {
	case '。', '！', '？', '；':
		return used >= sentenceUnits
	case '，', '：', '、':
		return used >= clauseUnits
	case '.', '!', '?', ';':
		return next && used >= sentenceUnits
	case ',', ':':
		return next && used >= clauseUnits
	}
	return false
}

// trimTitle trims spaces and trailing punctuation.
func trimTitle(s string) string {
	return strings.TrimRightFunc(strings.TrimSpace(s), func(r rune) bool { return unicode.IsSpace(r) || isTrailing(r) })
}

// isTrailing reports whether r is punctuation a title does not end with.
func isTrailing(r rune) bool {
	return strings.ContainsRune(".,;:!?…-–—。，；：！？、～~", r)
}

// isCJK reports whether r is a Chinese or Japanese character, written without
// spaces between words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
