// Package index is the memory's search engine: BM25 over overlapping
// chunks of documents, kept up to date incrementally, with history-aware
// query weighting, pseudo-relevance feedback, context from documents saved
// together, and boosts. It searches Docs, a small type of its own, and
// returns their ids with scores and the words that matched.
//
// It imports the text analysis (memory/internal/analysis) and the standard
// library, never memory itself: what the store knows of kinds reaches it as
// a Doc's Label and Boost.
package index
