// Package index is the memory's search engine: BM25 over overlapping
// chunks of documents, kept up to date incrementally.
//
// On top of BM25 it weighs the query by the chat's history, translates it
// across Chinese and English over the bilingual lexicon, adds
// pseudo-relevance feedback, context from documents saved together, and
// boosts. It searches Docs, a small type of its own, and returns their ids
// with scores and the words that matched.
//
// It imports the text analysis (memory/internal/analysis), the lexicon
// (memory/internal/lexicon) and the standard library, never memory itself:
// what the store knows of kinds reaches it as a Doc's Label and Boost.
package index
