package agent_test

import (
	"testing"

	"engram/agent"
	"engram/memory"
)

// TestSemanticChangedEvent: a new model of semantic recall, the endpoint's
// once it is set up and the built-in one again, is reported, so that the
// window follows the stores' indexing; the start reports none.
func TestSemanticChangedEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *agent.Options) { o.Memory.Embedder = memory.Builtin() })
	h.srv.SetEmbedModels("embed-a")
	semantic(t, h.a, "embed-a")
	first := h.next(func(e agent.Event) bool { _, ok := e.(agent.SemanticChanged); return ok })
	if got := first.(agent.SemanticChanged).Model; got != "embed-a" {
		t.Fatalf("the first SemanticChanged names %q, want embed-a (the start reports none)", got)
	}
	semantic(t, h.a, agent.SemanticBuiltin)
	back := h.next(func(e agent.Event) bool { _, ok := e.(agent.SemanticChanged); return ok })
	if got := back.(agent.SemanticChanged).Model; got != memory.BuiltinModel {
		t.Fatalf("back to the built-in model: SemanticChanged names %q", got)
	}
	if got := first.Chat(); got != "" {
		t.Fatalf("SemanticChanged belongs to chat %q", got)
	}
}
