package memory

import (
	"context"
	"sync"

	"engram/memory/internal/dense"
)

// Embedder turns texts into vectors for semantic recall: a model that puts
// texts of similar meaning near each other. Embed returns one vector of
// Dim values per text, or nil for a text it can say nothing of; Model names
// the model, so vectors of different models are never compared. An
// Embedder must be safe for use by several goroutines at once.
type Embedder interface {
	Embed(texts []string) ([][]float32, error)
	Dim() int
	Model() string
}

// BuiltinModel is the Model of the built-in embedder.
const BuiltinModel = "builtin-glove100-cedict"

// Builtin returns the built-in embedder: static word vectors (GloVe 100-d
// for English, Chinese words projected into the same space through the
// embedded bilingual dictionary), in the binary, offline. A text's vector is
// the mean of its words' vectors, very common words weighing little. The
// table is read in place on first use (a few milliseconds).
func Builtin() Embedder { return builtin{} }

type builtin struct{}

var encoders = sync.Pool{New: func() any { return new(dense.Encoder) }}

// Embed implements Embedder.
func (builtin) Embed(texts []string) ([][]float32, error) {
	if err := dense.Load(); err != nil {
		return nil, err
	}
	enc := encoders.Get().(*dense.Encoder)
	defer encoders.Put(enc)
	out := make([][]float32, len(texts))
	buf := make([]float32, len(texts)*dense.Dim)
	for i, t := range texts {
		v := buf[i*dense.Dim : (i+1)*dense.Dim : (i+1)*dense.Dim]
		if enc.Embed(t, v) {
			out[i] = v
		}
	}
	return out, nil
}

// Dim implements Embedder.
func (builtin) Dim() int { return dense.Dim }

// Model implements Embedder.
func (builtin) Model() string { return BuiltinModel }

// SetEmbedder changes the store's embedder (see Options.Embedder); nil
// turns the dense signal off. The vectors are computed in the background;
// recall uses words only until they are ready.
func (s *Store) SetEmbedder(e Embedder) {
	s.mu.Lock()
	s.embedder = e
	ix := s.index
	s.mu.Unlock()
	if ix != nil {
		ix.SetEmbedder(e)
	}
}

// WaitSemantic waits until recall's vectors are ready for every entry (see
// EntryIndex.WaitSemantic), building the index if no recall has yet.
func (s *Store) WaitSemantic(ctx context.Context) error {
	return s.searchIndex().WaitSemantic(ctx)
}

// SemanticProgress reports how many of the live entries have their vectors
// for semantic recall (done) of how many there are (total) while they are
// computed in the background (see EntryIndex.SemanticProgress); done ==
// total when nothing is, 0 of 0 before the first recall builds the index.
// It is cheap and safe from any goroutine.
func (s *Store) SemanticProgress() (done, total int) {
	s.mu.Lock()
	ix := s.index
	s.mu.Unlock()
	if ix == nil {
		return 0, 0
	}
	return ix.SemanticProgress()
}
