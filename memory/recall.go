package memory

// CONTRACT STUB — the recall helper replaces this file's bodies with the real
// engine (tokenizer, chunking, incremental BM25 index). Signatures are the
// agreed API; the store keeps one Index up to date and delegates Recall to it.

// Hit is one recalled memory: the entry, its score, the chunk that matched
// (index and rune offset in Entry.Text) and the query terms it matched, so a
// person can see why it was recalled.
type Hit struct {
	Entry  Entry
	Score  float64
	Chunk  int
	Offset int
	Terms  []string
}

// RecallOptions tunes one recall. Zero values mean the defaults.
type RecallOptions struct {
	K        int  // how many hits at most (default 5)
	NoCutoff bool // lift the relevance cut-off (bench-recall)
}

// Index is an inverted index over entry chunks, updated incrementally.
// It is safe for concurrent use.
type Index struct{}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{} }

// Put adds an entry or replaces the indexed version of it. Entries that are
// not Live are removed instead.
func (ix *Index) Put(e Entry) {}

// Delete removes an entry.
func (ix *Index) Delete(id string) {}

// Len is the number of entries indexed.
func (ix *Index) Len() int { return 0 }

// Search ranks the indexed entries for a query, with earlier user messages of
// the same chat (oldest first) as history.
func (ix *Index) Search(query string, history []string, opts RecallOptions) []Hit { return nil }

// RenderBlock renders hits as the prompt injection block, never longer than
// budget characters.
func RenderBlock(hits []Hit, budget int) string { return "" }
