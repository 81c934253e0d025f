package main

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The table format (all integers little-endian; see ../README.md):
//
//	header   magic "ENGLEX1\n", then u32 maxRunes, nWords, nGlossRefs, nTerms,
//	         nChineseRefs, nFoldRunes, nFoldWords, blobLen
//	words    nWords × {u32 off, u16 len, u16 nRefs, u32 firstRef}, sorted by text
//	gloss    nGlossRefs × u32 (term index << 8 | weight)
//	terms    nTerms × {u32 off, u16 len, u16 nRefs, u32 firstRef}, sorted by text
//	chinese  nChineseRefs × u32 (word index << 8 | weight)
//	foldr    nFoldRunes × {u32 traditional, u32 simplified}, sorted
//	foldw    nFoldWords × {u32 tradOff, u16 tradLen, u16 simpLen, u32 simpOff}, sorted by traditional
//	blob     the text all offsets point into
//
// A weight is 1..255 for 1/255..1, relative to the best of its list.
const magic = "ENGLEX1\n"

// encode writes lx in the table format. Its output is a function of lx alone.
func encode(lx *lexicon) []byte {
	var blob []byte
	at := map[string]uint32{}
	str := func(s string) (uint32, uint16) {
		if len(s) > math.MaxUint16 {
			panic(fmt.Sprintf("string of %d bytes", len(s)))
		}
		off, ok := at[s]
		if !ok {
			off = uint32(len(blob))
			at[s] = off
			blob = append(blob, s...)
		}
		return off, uint16(len(s))
	}
	wordIdx := make(map[string]uint32, len(lx.words))
	for i, w := range lx.words {
		wordIdx[w] = uint32(i)
	}
	termIdx := make(map[string]uint32, len(lx.terms))
	for i, t := range lx.terms {
		termIdx[t] = uint32(i)
	}

	le := binary.LittleEndian
	var words, gloss, terms, chinese, foldr, foldw []byte
	for _, w := range lx.words {
		off, n := str(w)
		ts := lx.glosses[w]
		words = le.AppendUint32(words, off)
		words = le.AppendUint16(words, n)
		words = le.AppendUint16(words, uint16(len(ts)))
		words = le.AppendUint32(words, uint32(len(gloss)/4))
		for _, t := range ts {
			gloss = le.AppendUint32(gloss, termIdx[t.s]<<8|uint32(quantise(t.w)))
		}
	}
	for _, t := range lx.terms {
		off, n := str(t)
		ws := lx.chinese[t]
		terms = le.AppendUint32(terms, off)
		terms = le.AppendUint16(terms, n)
		terms = le.AppendUint16(terms, uint16(len(ws)))
		terms = le.AppendUint32(terms, uint32(len(chinese)/4))
		for _, w := range ws {
			chinese = le.AppendUint32(chinese, wordIdx[w.s]<<8|uint32(quantise(w.w)))
		}
	}
	for _, p := range lx.foldRunes {
		foldr = le.AppendUint32(foldr, uint32(p[0]))
		foldr = le.AppendUint32(foldr, uint32(p[1]))
	}
	for _, p := range lx.foldWords {
		toff, tn := str(p[0])
		soff, sn := str(p[1])
		foldw = le.AppendUint32(foldw, toff)
		foldw = le.AppendUint16(foldw, tn)
		foldw = le.AppendUint16(foldw, sn)
		foldw = le.AppendUint32(foldw, soff)
	}
	if len(lx.words) >= 1<<24 || len(lx.terms) >= 1<<24 {
		panic("table too large for 24-bit indexes")
	}

	out := []byte(magic)
	for _, n := range []int{lx.maxRunes, len(lx.words), len(gloss) / 4, len(lx.terms), len(chinese) / 4,
		len(lx.foldRunes), len(lx.foldWords), len(blob)} {
		out = le.AppendUint32(out, uint32(n))
	}
	for _, part := range [][]byte{words, gloss, terms, chinese, foldr, foldw, blob} {
		out = append(out, part...)
	}
	return out
}

// quantise maps a weight in (0, 1] to 1..255.
func quantise(w float64) uint8 {
	return uint8(max(1, min(255, math.Round(w*255))))
}
