package dense

import (
	"math"
	"unicode/utf8"

	"engram/memory/internal/analysis"
	"engram/memory/internal/lexicon"
)

// SIF is the a of the smooth-inverse-frequency weight a/(a+p(w)): a word
// making up a thousandth of running text weighs a half, "the" (about 7%)
// about 0.01, a rare word nearly 1.
const SIF = 1e-3

// MinGloss is the least weight (lexicon.Term.Weight) of a gloss that goes
// into a Chinese word's vector: 1/√2 (0.707, stored as 180/255), so the
// first sense's glosses of one or two words and the second sense's
// one-word glosses: 难过 is "feel" and "sad", not also "difficult" and
// "unwell". Longer and later glosses are rarer readings that pull every
// common word to the middle of the space.
const MinGloss = 0.7

// Encoder turns texts into vectors. Its buffers are reused between calls,
// so one Encoder must not be used by two goroutines at once.
type Encoder struct {
	tok  analysis.Tokenizer
	word []float32 // a Chinese word's vector, while it is built
}

// Embed writes the vector of text into out (Dim values): the weighted mean
// of its words' vectors, scaled to unit length. It reports false, with out
// zeroed, when no word of text has a vector.
func (e *Encoder) Embed(text string, out []float32) bool {
	t := get()
	out = out[:Dim]
	clear(out)
	total := float32(0)
	e.tok.Each(text, func(term []byte, class analysis.Class, _, _ int) {
		if class != analysis.Word && class != analysis.Part {
			return
		}
		if i := t.find(string(term)); i >= 0 {
			w := SIF / (SIF + t.freq(i))
			t.addTo(out, i, w)
			total += w
		}
	})
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !analysis.IsCJK(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if !analysis.IsCJK(r2) {
				break
			}
			j += n2
		}
		total += e.chinese(t, lexicon.Fold(text[i:j]), out)
		i = j
	}
	return total > 0 && unit(out)
}

// chinese adds the vectors of the dictionary words of a run of simplified
// Chinese text to out and returns their total weight. A word's vector is
// the mean of its good glosses' vectors (see MinGloss) weighted by how well
// each translates it; its frequency, the same mean of theirs. Stopwords and words with no
// gloss that has a vector are skipped.
func (e *Encoder) chinese(t *table, run string, out []float32) float32 {
	if cap(e.word) < Dim {
		e.word = make([]float32, Dim)
	}
	e.word = e.word[:Dim]
	total := float32(0)
	for run != "" {
		n := lexicon.Match(run)
		if n == 0 {
			_, n = utf8.DecodeRuneInString(run)
		}
		w := run[:n]
		run = run[n:]
		if analysis.IsChineseStop(w) {
			continue
		}
		clear(e.word)
		gw, p := float32(0), float32(0)
		for g := range lexicon.Glosses(w).All() {
			if g.Weight < MinGloss {
				continue
			}
			if i := t.find(g.Text); i >= 0 {
				t.addTo(e.word, i, g.Weight)
				gw += g.Weight
				p += g.Weight * t.freq(i)
			}
		}
		if gw == 0 || !unit(e.word) {
			continue
		}
		sif := SIF / (SIF + p/gw)
		for d, x := range e.word {
			out[d] += sif * x
		}
		total += sif
	}
	return total
}

// unit scales v to unit length, reporting false for a zero vector.
func unit(v []float32) bool {
	s := float32(0)
	for _, x := range v {
		s += x * x
	}
	if s == 0 {
		return false
	}
	inv := float32(1 / math.Sqrt(float64(s)))
	for i := range v {
		v[i] *= inv
	}
	return true
}
