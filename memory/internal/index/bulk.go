package index

import (
	"iter"
	"runtime"

	"engram/memory/internal/analysis"
	"engram/memory/internal/lexicon"
)

// tokenBatch is a run of entries tokenized ahead: the dictionary keys and
// classes of all their terms, and the chunks of all the entries in order
// (entry i's are chunks[first[i]:first[i+1]]), in flat arrays.
type tokenBatch struct {
	entries []Doc
	first   []int32
	chunks  []batchChunk
	keys    []uint64
	classes []analysis.Class
	// With words asked for, the words of entry i end at
	// wordEnds[wordFirst[i]:wordFirst[i+1]] in words, lowercased, perhaps
	// repeated (the overlap of two chunks).
	words     []byte
	wordEnds  []int32
	wordFirst []int32
}

// batchChunk is one chunk of a tokenBatch: its span, number of terms and
// length.
type batchChunk struct {
	span         chunkSpan
	ntok, length int32
}

// tokenizeAll tokenizes entries in batches on all processors and yields the
// batches in order; at most a few are held ahead of the consumer.
func tokenizeAll(es []Doc, words bool) iter.Seq[*tokenBatch] {
	return func(yield func(*tokenBatch) bool) {
		// Batches of up to 512 entries, and at least four per worker so that
		// a small store is shared out too.
		workers := max(runtime.GOMAXPROCS(0), 1)
		size := min(512, max(32, (len(es)+4*workers-1)/(4*workers)))
		n := (len(es) + size - 1) / size
		out := make([]chan *tokenBatch, n)
		for i := range out {
			out[i] = make(chan *tokenBatch, 1)
		}
		slots := make(chan struct{}, workers+1)
		done := make(chan struct{})
		defer close(done)
		go func() {
			for i := range n {
				select {
				case slots <- struct{}{}:
				case <-done:
					return
				}
				go func() {
					out[i] <- tokenizeBatch(es[i*size:min(len(es), (i+1)*size)], words)
				}()
			}
		}()
		for i := range n {
			b := <-out[i]
			<-slots
			if !yield(b) {
				return
			}
		}
	}
}

func tokenizeBatch(es []Doc, words bool) *tokenBatch {
	b := &tokenBatch{entries: es, first: make([]int32, len(es)+1), chunks: make([]batchChunk, 0, len(es))}
	if words {
		b.wordFirst = make([]int32, len(es)+1)
	}
	var tok analysis.Tokenizer
	var spans []chunkSpan
	var offs []int
	for i, e := range es {
		b.first[i] = int32(len(b.chunks))
		spans, offs = appendChunks(spans[:0], offs, e.Text)
		// The words of the chunks are those of the text unless a chunk
		// cut one: then the text is read for its words on its own.
		collect := words && cutsNoWord(e.Text, spans)
		if words {
			b.wordFirst[i] = int32(len(b.wordEnds))
		}
		for _, sp := range spans {
			start := len(b.keys)
			length := int32(0)
			text := lexicon.Fold(e.Text[sp.start:sp.end])
			tok.Each(text, func(term []byte, class analysis.Class, from, to int) {
				b.keys = append(b.keys, termKey(term, class))
				b.classes = append(b.classes, class)
				if class != analysis.Uni && class != analysis.Part {
					length++
				}
				if collect && class.Latin() {
					b.words = analysis.AppendLower(b.words, text[from:to])
					b.wordEnds = append(b.wordEnds, int32(len(b.words)))
				}
			})
			b.chunks = append(b.chunks, batchChunk{span: sp, ntok: int32(len(b.keys) - start), length: length})
		}
		if words && !collect {
			b.words, b.wordEnds = tok.AppendWords(e.Text, b.words, b.wordEnds)
		}
	}
	b.first[len(es)] = int32(len(b.chunks))
	if words {
		b.wordFirst[len(es)] = int32(len(b.wordEnds))
	}
	return b
}

// cutsNoWord reports whether every chunk of text starts and ends at the
// text's ends or next to a space, so no word is cut in two.
func cutsNoWord(text string, spans []chunkSpan) bool {
	for _, sp := range spans {
		if sp.start > 0 && !isSpaceByte(text, sp.start-1) || sp.end < len(text) && !isSpaceByte(text, sp.end) {
			return false
		}
	}
	return true
}

// entryWords returns the words of entry i of the batch into buf (see
// tokenBatch).
func (b *tokenBatch) entryWords(i int, buf [][]byte) [][]byte {
	first, end := b.wordFirst[i], b.wordFirst[i+1]
	from := int32(0)
	if first > 0 {
		from = b.wordEnds[first-1]
	}
	buf = buf[:0]
	for _, to := range b.wordEnds[first:end] {
		buf = append(buf, b.words[from:to])
		from = to
	}
	return buf
}

// layPostings builds every postings list from the chunks' term lists (after
// a bulk PutAll): count, then place each posting, in doc order.
func (ix *Index) layPostings() {
	next := make([]int32, len(ix.terms)+1) // start of each list, then its cursor
	for _, m := range ix.docMeta {
		for _, v := range m.terms {
			next[v>>tfBits+1]++
		}
	}
	for i := 1; i < len(next); i++ {
		next[i] += next[i-1]
	}
	arena := make([]uint32, next[len(next)-1])
	for id := range ix.terms {
		start, end := next[id], next[id+1]
		ix.terms[id].post = arena[start:start:end]
		ix.terms[id].df = end - start
	}
	for d, m := range ix.docMeta {
		for _, v := range m.terms {
			t := &ix.terms[v>>tfBits]
			t.post = append(t.post, uint32(d)<<tfBits|v&tfMax)
		}
	}
}
