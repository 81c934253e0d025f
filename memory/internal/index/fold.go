package index

import (
	"unicode/utf8"

	"engram/memory/internal/lexicon"
)

// foldedText is a text in simplified script (lexicon.Fold), what the index
// tokenizes, with the way back to the text as written, so that the words a
// hit matched are shown as the person typed them (記憶, not 记忆).
type foldedText struct {
	orig, text string
	// back maps a byte offset of text to one of orig; nil when they are
	// the same text.
	back []int32
}

func foldText(orig string) foldedText {
	f := foldedText{orig: orig, text: lexicon.Fold(orig)}
	if f.text == orig || utf8.RuneCountInString(f.text) != utf8.RuneCountInString(orig) {
		return f
	}
	// A fold keeps the number of runes but not always their UTF-8 length.
	f.back = make([]int32, len(f.text)+1)
	j := 0
	for i := range f.text {
		f.back[i] = int32(j)
		_, n := utf8.DecodeRuneInString(orig[j:])
		j += n
	}
	f.back[len(f.text)] = int32(len(orig))
	return f
}

// span returns the original text of text[start:end].
func (f *foldedText) span(start, end int32) string {
	switch {
	case f.text == f.orig:
		return f.orig[start:end]
	case f.back == nil:
		return f.text[start:end]
	}
	return f.orig[f.back[start]:f.back[end]]
}
