package memory

import (
	"strings"
	"unicode/utf8"
)

// The marks around the injected block and the line that introduces it.
const (
	blockStart  = "<memory>"
	blockEnd    = "</memory>"
	blockIntro  = "Things remembered about the user and their work, most relevant first:"
	minItemRune = 24 // a memory cut shorter than this is left out instead
)

// RenderBlock renders hits as the prompt injection block: a start mark, one
// line per memory labelled by kind, best first, and an end mark. The block is
// never longer than budget characters (runes); memories that do not fit are
// cut (at the chunk that matched) or left out. No hits, or a budget too small
// for even one memory, give "".
func RenderBlock(hits []Hit, budget int) string {
	if len(hits) == 0 {
		return ""
	}
	var b strings.Builder
	head := blockStart + "\n" + blockIntro + "\n"
	tail := blockEnd
	used := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
	if used >= budget {
		return ""
	}
	b.WriteString(head)
	n := 0
	for _, h := range hits {
		label := "- [" + string(kindOrFact(h.Entry.Kind)) + "] "
		room := budget - used - utf8.RuneCountInString(label) - 1 // newline
		if room < minItemRune {
			break
		}
		text := oneLine(unmark.Replace(h.Entry.Text))
		if utf8.RuneCountInString(text) > room {
			text = excerpt(text, h.Offset, room)
		}
		line := label + text + "\n"
		b.WriteString(line)
		used += utf8.RuneCountInString(line)
		n++
	}
	if n == 0 {
		return ""
	}
	b.WriteString(tail)
	return b.String()
}

func kindOrFact(k Kind) Kind {
	if k.Strength() == 0 {
		return KindFact
	}
	return k
}

// unmark defuses the block's marks inside a memory's text, so that a memory
// cannot end the block early (or open another) in the prompt.
var unmark = strings.NewReplacer(blockStart, "[memory]", blockEnd, "[/memory]")

// oneLine folds runs of white space, newlines included, into single spaces
// so that every memory takes one line of the block.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// excerpt cuts text to at most room runes, starting near rune offset off
// (the matched chunk), with "…" marking what was cut.
func excerpt(text string, off, room int) string {
	rs := []rune(text)
	if len(rs) <= room {
		return text
	}
	if off > len(rs)-room+1 {
		off = len(rs) - room + 1
	}
	if off < 0 {
		off = 0
	}
	var b strings.Builder
	avail := room
	if off > 0 {
		b.WriteString("…")
		avail--
	}
	end := off + avail
	if end < len(rs) {
		end-- // room for the closing "…"
	}
	b.WriteString(string(rs[off:end]))
	if end < len(rs) {
		b.WriteString("…")
	}
	return b.String()
}
