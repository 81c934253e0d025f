// Package index is the memory's search engine: BM25 over overlapping
// chunks of documents, kept up to date incrementally.
//
// On top of BM25 it weighs the query by the chat's history, translates it
// across Chinese and English over the bilingual lexicon, adds
// pseudo-relevance feedback, context from documents saved together, and
// boosts. It searches Docs, a small type of its own, and returns their ids
// with scores and the words that matched.
//
// A caller fusing another signal with BM25 does it inside a search
// (Options.Rerank): it is given the best hits before they are explained and
// returns those to explain, so only the hits shown pay for it.
//
// It imports the text analysis (memory/internal/analysis), the lexicon
// (memory/internal/lexicon) and the standard library, never memory itself:
// what the store knows of kinds reaches it as a Doc's Label and Boost.
package index
