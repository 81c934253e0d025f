package main

import (
	"math"
	"slices"

	"engram/memory/internal/analysis"
)

// term is one entry of the table: an index term, its unit vector and its
// share of running text.
type term struct {
	text string
	vec  []float32
	p    float64
}

// build keys the vectors by the terms the engine's tokenizer makes of the
// words: a word that yields exactly one plain word term (lowercased,
// stemmed; stopwords yield none) adds its vector to that term's, weighted
// by its frequency, so "run", "runs" and "running" make one vector leaning
// to the most common form. A word's frequency is estimated from its rank by
// Zipf's law, p(rank r) = 1 / ((r+1)·H) over all the package's words, and a
// term's is the sum of its words'. The terms come out sorted by text, with
// unit vectors.
func build(src *source) []term {
	h := 0.0
	for r := range src.total {
		h += 1 / float64(r+1)
	}
	byText := map[string]*term{}
	var tok analysis.Tokenizer
	for r, w := range src.words {
		key, ok := "", true
		n := 0
		tok.Each(w, func(t []byte, class analysis.Class, _, _ int) {
			n++
			if class != analysis.Word {
				ok = false
			}
			key = string(t)
		})
		if n != 1 || !ok {
			continue
		}
		p := 1 / (float64(r+1) * h)
		t := byText[key]
		if t == nil {
			t = &term{text: key, vec: make([]float32, src.dim)}
			byText[key] = t
		}
		t.p += p
		for d, x := range src.vecs[r] {
			t.vec[d] += float32(p) * x
		}
	}
	out := make([]term, 0, len(byText))
	for _, t := range byText {
		if normalize(t.vec) {
			out = append(out, *t)
		}
	}
	slices.SortFunc(out, func(a, b term) int {
		switch {
		case a.text < b.text:
			return -1
		case a.text > b.text:
			return 1
		}
		return 0
	})
	return out
}

// normalize scales v to unit length, reporting false for a zero vector.
func normalize(v []float32) bool {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return true
}
