package chat

import (
	"encoding/json"

	"engram/memory"
)

// recalledRef is how a chat file records a recalled memory: a reference
// (ID, kind, scope and why it matched), never a copy of its text, so that
// forgetting a memory removes its text from everywhere but the store.
type recalledRef struct {
	ID     string      `json:"id"`
	Kind   memory.Kind `json:"kind,omitempty"`
	Scope  Scope       `json:"scope,omitempty"`
	Score  float64     `json:"score,omitempty"`
	Chunk  int         `json:"chunk,omitempty"`
	Offset int         `json:"offset,omitempty"`
	Terms  []string    `json:"terms,omitempty"`
	// Earlier are those of Terms that only earlier messages matched.
	Earlier []string `json:"earlier,omitempty"`
	// Meaning is the cosine of a hit the dense signal brought.
	Meaning float64 `json:"meaning,omitempty"`
}

// MarshalJSON writes the hit as a reference to its memory, without the
// memory's text (the agent resolves it again from the stores).
func (h Hit) MarshalJSON() ([]byte, error) {
	return json.Marshal(recalledRef{ID: h.Entry.ID, Kind: h.Entry.Kind, Scope: h.Scope, Score: h.Score,
		Chunk: h.Chunk, Offset: h.Offset, Terms: h.Terms, Earlier: h.Earlier, Meaning: h.Meaning})
}

// UnmarshalJSON reads a reference, or a hit of an older chat file that
// carried the whole entry (its text is dropped: the store has it).
func (h *Hit) UnmarshalJSON(b []byte) error {
	var old struct {
		Entry *memory.Entry
		recalledRef
	}
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	ref := old.recalledRef
	if old.Entry != nil {
		ref.ID, ref.Kind = old.Entry.ID, old.Entry.Kind
		var legacy struct {
			Score  float64
			Chunk  int
			Offset int
			Terms  []string
			Scope  Scope
		}
		if err := json.Unmarshal(b, &legacy); err != nil {
			return err
		}
		ref.Score, ref.Chunk, ref.Offset, ref.Terms, ref.Scope = legacy.Score, legacy.Chunk, legacy.Offset,
			legacy.Terms, legacy.Scope
	}
	*h = Hit{Hit: memory.Hit{Entry: memory.Entry{ID: ref.ID, Kind: ref.Kind}, Score: ref.Score,
		Chunk: ref.Chunk, Offset: ref.Offset, Terms: ref.Terms, Earlier: ref.Earlier, Meaning: ref.Meaning},
		Scope: ref.Scope}
	return nil
}
