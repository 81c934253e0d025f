package memory_test

import (
	"testing"

	"engram/memory"
)

// Duplicate finds the live entry an Add would dedupe into, and nothing for
// a new text or a deleted entry.
func TestStoreDuplicate(t *testing.T) {
	s := memory.NewInMemory(memory.Options{})
	e, _, err := s.Add(memory.Entry{Kind: memory.KindFact, Text: "The user drinks black coffee."})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Duplicate("the user drinks black coffee"); !ok || got.ID != e.ID {
		t.Errorf("Duplicate of a restatement = %+v, %v", got, ok)
	}
	if _, ok := s.Duplicate("The user drinks green tea."); ok {
		t.Error("a new text counts as a duplicate")
	}
	if err := s.Remove(e.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Duplicate("the user drinks black coffee"); ok {
		t.Error("a deleted entry counts as a duplicate")
	}
}
