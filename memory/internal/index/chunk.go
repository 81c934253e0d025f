package index

import "unicode/utf8"

// Chunking of long entries: windows of ChunkRunes runes that overlap by
// ChunkOverlap runes, cut at rune boundaries (preferably at a space near the
// edge), so a long entry is found by the part that matches and one long
// entry cannot drown the short ones by its length.
const (
	ChunkRunes   = 320
	ChunkOverlap = 80
)

// chunkSpan is one window of an entry's text: byte range and the offset of
// its first rune.
type chunkSpan struct {
	start, end int // bytes
	runeOff    int // runes from the start of the text
}

// chunkText splits text into overlapping windows. Text of at most ChunkRunes
// runes is one chunk.
func chunkText(text string) []chunkSpan {
	out, _ := appendChunks(nil, nil, text)
	return out
}

// appendChunks appends the windows of text (see chunkText) to out. offs is
// a buffer for the rune offsets of a long text, returned for reuse, so a
// bulk build allocates no slices per entry.
func appendChunks(out []chunkSpan, offs []int, text string) ([]chunkSpan, []int) {
	n := utf8.RuneCountInString(text)
	if n <= ChunkRunes {
		return append(out, chunkSpan{0, len(text), 0}), offs
	}
	// byte offset of every rune, plus len(text) at the end
	offs = offs[:0]
	for i := range text {
		offs = append(offs, i)
	}
	offs = append(offs, len(text))
	step := ChunkRunes - ChunkOverlap
	for s := 0; ; {
		e := s + ChunkRunes
		if e >= n {
			return append(out, chunkSpan{offs[s], len(text), s}), offs
		}
		// End at a space within the last 24 runes if there is one, so words
		// are not cut in two.
		for b := e; b > e-24; b-- {
			if isSpaceByte(text, offs[b]) {
				e = b
				break
			}
		}
		out = append(out, chunkSpan{offs[s], offs[e], s})
		next := e - ChunkOverlap
		if next <= s {
			next = s + step
		}
		// Start after a space within the next 24 runes if there is one.
		for b := next; b < next+24 && b < e; b++ {
			if isSpaceByte(text, offs[b]) {
				next = b + 1
				break
			}
		}
		s = next
	}
}

func isSpaceByte(text string, i int) bool {
	switch text[i] {
	case ' ', '\n', '\t', '\r':
		return true
	}
	return false
}

// Chunk is one window of a text as the index cuts it: its byte range and
// the offset of its first rune.
type Chunk struct {
	Start, End int // bytes
	Offset     int // runes from the start of the text
}

// Chunks splits text into the windows the index searches (see ChunkRunes).
func Chunks(text string) []Chunk {
	spans := chunkText(text)
	out := make([]Chunk, len(spans))
	for i, sp := range spans {
		out[i] = Chunk{Start: sp.start, End: sp.end, Offset: sp.runeOff}
	}
	return out
}
