package index

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunkTextShort(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "short", strings.Repeat("长", ChunkRunes)} {
		got := chunkText(text)
		if len(got) != 1 || got[0] != (chunkSpan{0, len(text), 0}) {
			t.Errorf("chunkText(%d runes) = %v, want one chunk of all", utf8.RuneCountInString(text), got)
		}
	}
}

func TestChunkTextBoundaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
	}{
		{"one rune over", strings.Repeat("字", ChunkRunes+1)},
		{"CJK without spaces", strings.Repeat("记忆引擎需要把长文本切成重叠的窗口。", 60)},
		{"English with spaces", strings.Repeat("the quick brown fox jumps over the lazy dog ", 40)},
		{"mixed and four-byte runes", strings.Repeat("emoji 😀 混合 text ", 90)},
		{"one long word", strings.Repeat("x", 1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkChunks(t, tt.text)
		})
	}
}

// checkChunks verifies the chunking invariants for text.
func checkChunks(t *testing.T, text string) {
	t.Helper()
	spans := chunkText(text)
	n := utf8.RuneCountInString(text)
	if n > ChunkRunes && len(spans) < 2 {
		t.Fatalf("%d runes in %d chunk(s)", n, len(spans))
	}
	if spans[0].start != 0 || spans[len(spans)-1].end != len(text) {
		t.Fatalf("chunks do not cover the text: first starts at %d, last ends at %d of %d",
			spans[0].start, spans[len(spans)-1].end, len(text))
	}
	for i, sp := range spans {
		c := text[sp.start:sp.end]
		if !utf8.ValidString(c) || (sp.start > 0 && !utf8.RuneStart(text[sp.start])) {
			t.Fatalf("chunk %d [%d,%d) is cut inside a rune", i, sp.start, sp.end)
		}
		if r := utf8.RuneCountInString(c); r > ChunkRunes || r == 0 {
			t.Fatalf("chunk %d has %d runes", i, r)
		}
		if got := utf8.RuneCountInString(text[:sp.start]); got != sp.runeOff {
			t.Fatalf("chunk %d: rune offset %d, want %d", i, sp.runeOff, got)
		}
		if i == 0 {
			continue
		}
		prev := spans[i-1]
		if sp.start <= prev.start {
			t.Fatalf("chunk %d does not advance", i)
		}
		if sp.start >= prev.end {
			t.Fatalf("chunk %d does not overlap the previous one", i)
		}
		overlap := utf8.RuneCountInString(text[sp.start:prev.end])
		if overlap < ChunkOverlap-24 || overlap > ChunkOverlap+24 {
			t.Fatalf("chunk %d overlaps by %d runes, want about %d", i, overlap, ChunkOverlap)
		}
	}
}

func FuzzChunkText(f *testing.F) {
	f.Add(strings.Repeat("a b ", 200), 3)
	f.Add(strings.Repeat("字", 700), 1)
	f.Add("😀 x", 300)
	f.Fuzz(func(t *testing.T, unit string, times int) {
		if times < 0 || times > 500 || !utf8.ValidString(unit) || unit == "" {
			return
		}
		checkChunks(t, strings.Repeat(unit, times))
	})
}
