package memory

import "engram/memory/internal/index"

// TextIndex is the recall engine over texts that are not memories, such as
// chat messages: the same tokenizer, stemmer and bilingual lexicon, BM25 and
// relevance cut-off, without what only memories have (kinds, pins, uses,
// recency, context and feedback). All methods are safe for concurrent use.
type TextIndex struct {
	ix *index.Index
}

// Text is one text to index, under an ID of the caller's.
type Text struct {
	ID   string
	Text string
}

// TextHit is one text found: its ID, score, the rune offset in the text of
// the part that matched, and the words of the query it matched (a word
// matched through its translation reads "coffee → 咖啡").
type TextHit struct {
	ID     string
	Score  float64
	Offset int
	Terms  []string
}

// NewTextIndex returns an empty index.
func NewTextIndex() *TextIndex { return &TextIndex{ix: index.NewText()} }

// Put adds a text or replaces the indexed version of it.
func (x *TextIndex) Put(id, text string) { x.ix.Put(index.Doc{ID: id, Text: text}) }

// PutAll puts many texts, as many calls of Put would, faster into an empty
// index.
func (x *TextIndex) PutAll(ts []Text) {
	docs := make([]index.Doc, len(ts))
	for i, t := range ts {
		docs[i] = index.Doc{ID: t.ID, Text: t.Text}
	}
	x.ix.PutAll(docs)
}

// Delete removes a text; removing one not indexed does nothing.
func (x *TextIndex) Delete(id string) { x.ix.Delete(id) }

// Len is the number of texts indexed.
func (x *TextIndex) Len() int { return x.ix.Len() }

// Search returns at most k texts for query, best first, only those relevant
// enough to be worth showing. Texts that are the same are found once.
func (x *TextIndex) Search(query string, k int) []TextHit {
	found := x.ix.Search(query, nil, index.Options{K: k})
	if len(found) == 0 {
		return nil
	}
	hits := make([]TextHit, len(found))
	for i, h := range found {
		hits[i] = TextHit{ID: h.ID, Score: h.Score, Offset: h.Offset, Terms: h.Terms}
	}
	return hits
}
