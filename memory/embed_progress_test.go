package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/memory"
)

// gatedEmbedder is a slow embedder: each call says how many texts it got
// (unless called is nil), then waits to be let go, so a test sees the
// progress between batches.
type gatedEmbedder struct {
	called chan int
	free   chan struct{}
}

func (g gatedEmbedder) Embed(texts []string) ([][]float32, error) {
	if g.called != nil {
		g.called <- len(texts)
	}
	<-g.free
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = []float32{1, float32(i%7) + 1}
	}
	return out, nil
}

func (gatedEmbedder) Dim() int      { return 2 }
func (gatedEmbedder) Model() string { return "gated" }

// TestSemanticProgress: while the vectors are computed in the background,
// the counts advance a batch at a time, and reach the total when they are
// all there.
func TestSemanticProgress(t *testing.T) {
	const n = 600 // three batches
	x := memory.NewEntryIndex()
	es := make([]memory.Entry, n)
	for i := range es {
		es[i] = memory.Entry{ID: fmt.Sprintf("m%03d", i), Kind: memory.KindFact, Text: fmt.Sprintf("memory number %d", i)}
	}
	x.PutAll(es)
	if done, total := x.SemanticProgress(); done != n || total != n {
		t.Errorf("without an embedder: %d of %d", done, total)
	}
	g := gatedEmbedder{called: make(chan int), free: make(chan struct{})}
	x.SetEmbedder(g)
	timeout := time.After(10 * time.Second)
	for _, want := range []int{0, 256, 512} {
		select {
		case <-g.called:
		case <-timeout:
			t.Fatal("the embedder was not called")
		}
		if done, total := x.SemanticProgress(); done != want || total != n {
			t.Errorf("while embedding: %d of %d, want %d of %d", done, total, want, n)
		}
		g.free <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := x.WaitSemantic(ctx); err != nil {
		t.Fatal(err)
	}
	if done, total := x.SemanticProgress(); done != n || total != n {
		t.Errorf("when finished: %d of %d", done, total)
	}

	x.Put(memory.Entry{ID: "new", Kind: memory.KindFact, Text: "one more memory"})
	<-g.called
	if done, total := x.SemanticProgress(); done != n || total != n+1 {
		t.Errorf("embedding one new memory: %d of %d", done, total)
	}
	g.free <- struct{}{}
	if err := x.WaitSemantic(ctx); err != nil {
		t.Fatal(err)
	}
	if done, total := x.SemanticProgress(); done != n+1 || total != n+1 {
		t.Errorf("when the new one is done: %d of %d", done, total)
	}
}

// TestStoreSemanticProgress: a store reports nothing to do before its
// index is built, and its entries' progress after.
func TestStoreSemanticProgress(t *testing.T) {
	s := memory.NewInMemory(memory.Options{Embedder: memory.Builtin()})
	mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "The car needs new tyres"})
	mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "She planted tomatoes"})
	if done, total := s.SemanticProgress(); done != 0 || total != 0 {
		t.Errorf("before the first recall: %d of %d", done, total)
	}
	waitSemantic(t, s)
	if done, total := s.SemanticProgress(); done != 2 || total != 2 {
		t.Errorf("when ready: %d of %d", done, total)
	}
}

// TestSetEmbedderWhileEmbedding: setting an embedder of the same model
// while the worker computes (the agent does on every settings change)
// keeps the vectors coming, and the race detector finds no unguarded
// access to the one the worker is using. The embedder tells nothing when
// it is called (that would order the worker's access before the swap), so
// the test gives the worker time to be in it.
func TestSetEmbedderWhileEmbedding(t *testing.T) {
	x := memory.NewEntryIndex()
	x.PutAll([]memory.Entry{{ID: "a", Kind: memory.KindFact, Text: "memory one"}})
	g := gatedEmbedder{free: make(chan struct{})}
	x.SetEmbedder(g)
	time.Sleep(100 * time.Millisecond)
	x.SetEmbedder(gatedEmbedder{free: g.free})
	close(g.free)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := x.WaitSemantic(ctx); err != nil {
		t.Fatal(err)
	}
	if done, total := x.SemanticProgress(); done != 1 || total != 1 {
		t.Errorf("after the swap: %d of %d", done, total)
	}
}
