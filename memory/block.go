package memory

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The marks around the injected block and the line that introduces it.
const (
	blockStart  = "<memory>"
	blockEnd    = "</memory>"
	blockIntro  = "Things remembered about the user and their work, most relevant first (kind · id · date last confirmed):"
	minItemRune = 24 // a memory cut shorter than this is left out instead
)

// RenderBlock renders hits as the prompt injection block: a start mark, one
// line per memory labelled by kind, ID and the date it was last confirmed
// ("- [preference · k3xq7m2ad4 · 2026-11-02] …"), best first, and an end
// mark. The block is never longer than budget characters (runes); memories
// that do not fit are cut (at the chunk that matched) or left out. No hits,
// or a budget too small for even one memory, give "". Block marks inside a
// memory, in any case and spacing, are defused (see Defuse).
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
		label := Label(h.Entry) + " "
		room := budget - used - utf8.RuneCountInString(label) - 1 // newline
		if room < minItemRune {
			break
		}
		text := oneLine(Defuse(h.Entry.Text))
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

// Label is how a memory is named in a prompt: "- [kind · id · date]", the
// date being the day (UTC) it was last confirmed (Updated, or Created). An
// entry without ID or dates leaves them out.
func Label(e Entry) string {
	parts := []string{string(kindOrFact(e.Kind))}
	if validID(e.ID) {
		parts = append(parts, e.ID)
	}
	if d := Confirmed(e); !d.IsZero() {
		parts = append(parts, d.UTC().Format(time.DateOnly))
	}
	return "- [" + strings.Join(parts, " · ") + "]"
}

// Confirmed is when a memory was last confirmed: its Updated time (a
// restatement refreshes it), else its Created time.
func Confirmed(e Entry) time.Time {
	if !e.Updated.IsZero() {
		return e.Updated
	}
	return e.Created
}

// RenderPinned lists pinned memories for the system prompt, one a line
// labelled as in RenderBlock, in their order, within budget runes. No
// memory is dropped silently: each gets a fair share of the budget (short
// ones keep their full text, long ones are cut with "…"), and when there are
// too many for even a short line each, a last line says how many are not
// shown. Block marks are defused.
func RenderPinned(es []Entry, budget int) string {
	if len(es) == 0 || budget <= 0 {
		return ""
	}
	type item struct {
		label string
		text  []rune
		room  int
	}
	items := make([]item, len(es))
	need := 0
	for i, e := range es {
		items[i] = item{label: Label(e) + " ", text: []rune(oneLine(Defuse(e.Text)))}
		need += utf8.RuneCountInString(items[i].label) + 1
	}
	// Show as many as get at least minItemRune of text each, keeping room
	// for the line that counts the others.
	shown := len(items)
	for shown > 0 && need+shown*minItemRune > budget-moreLineRunes(len(items)-shown) {
		shown--
		need -= utf8.RuneCountInString(items[shown].label) + 1
	}
	avail := budget - need - moreLineRunes(len(items)-shown)
	// Fair shares: the shortest texts first take what they need, the rest
	// split what is left evenly.
	order := make([]int, shown)
	for i := range order {
		order[i] = i
	}
	sortByLen(order, func(i int) int { return len(items[i].text) })
	for k, i := range order {
		share := avail / (shown - k)
		items[i].room = min(len(items[i].text), share)
		avail -= items[i].room
	}
	var b strings.Builder
	for _, it := range items[:shown] {
		text := it.text
		if len(text) > it.room {
			text = append(text[:it.room-1:it.room-1], '…')
		}
		b.WriteString(it.label)
		b.WriteString(string(text))
		b.WriteByte('\n')
	}
	if rest := len(items) - shown; rest > 0 {
		b.WriteString(moreLine(rest))
	}
	return b.String()
}

func moreLine(n int) string {
	return "- … and " + strconv.Itoa(n) + " more pinned memories that do not fit (see the memory inspector)\n"
}

func moreLineRunes(n int) int {
	if n == 0 {
		return 0
	}
	return utf8.RuneCountInString(moreLine(n))
}

// sortByLen sorts idx by key, ascending, keeping ties in order.
func sortByLen(idx []int, key func(int) int) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && key(idx[j]) < key(idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

func kindOrFact(k Kind) Kind {
	if k.Strength() == 0 {
		return KindFact
	}
	return k
}

// markRE matches the block's marks in any case and spacing: "<memory>",
// "</MEMORY>", "< /memory >", "<memory id=x>".
var markRE = regexp.MustCompile(`(?i)<\s*(/?)\s*memory\b[^<>]*>`)

// Defuse neutralises the block's marks inside a memory's text, in any case,
// spacing and spelling, so that a memory cannot end the block early (or
// open another) in the prompt: "</MEMORY>" becomes "[/memory]". The marks
// are looked for in the text as a reader sees it — compatibility forms
// folded (full-width "＜／ｍｅｍｏｒｙ＞"), every kind of space one space,
// invisible format characters dropped — and a text with a mark in any such
// spelling comes back in that folded form with the mark defused; any other
// text comes back unchanged.
func Defuse(s string) string {
	if !strings.ContainsAny(s, markOpeners) {
		return s // no spelling of "<": nothing can open or close the block
	}
	folded := strings.Map(dropFormat, norm.NFKC.String(s))
	folded = strings.Join(strings.FieldsFunc(folded, unicode.IsSpace), " ")
	if !markRE.MatchString(folded) {
		return s
	}
	// Defusing an inner mark can complete an outer one ("<memory <memory >>"
	// becomes "<memory [memory]>"): repeat until none is left. Each round
	// takes out a "<", so the rounds end.
	for markRE.MatchString(folded) {
		folded = markRE.ReplaceAllString(folded, "[${1}memory]")
	}
	return folded
}

// markOpeners are the characters that NFKC folds to "<" (and "<" itself).
const markOpeners = "<\ufe64\uff1c"

// dropFormat drops the invisible format characters (zero-width spaces and
// joiners, direction marks) that could hide a mark from the pattern.
func dropFormat(r rune) rune {
	if unicode.Is(unicode.Cf, r) {
		return -1
	}
	return r
}

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
