// Package analysis turns text into the terms the memory index uses.
//
// English and other Latin words are lowercased, stopwords dropped and
// stemmed (Porter, with irregular forms), identifiers and numbers kept whole
// and in parts, CJK runs split into overlapping bigrams and single
// characters, full-width forms folded to half-width.
//
// It is pure text processing: it imports only the standard library, never
// memory or the index.
package analysis
