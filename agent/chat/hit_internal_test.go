package chat

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"engram/memory"
)

// TestHitKeepsMeaning: a chat file keeps the cosine of a hit the dense
// signal brought, a lexical hit is written as before, and a file written
// before the cosine was kept still loads.
func TestHitKeepsMeaning(t *testing.T) {
	dense := Hit{Hit: memory.Hit{Entry: memory.Entry{ID: "m1", Kind: memory.KindFact, Text: "espresso"}, Score: 0.8,
		Terms: []string{"coffee → 咖啡"}, Meaning: 0.62}, Scope: ScopeGlobal}
	b, err := json.Marshal(dense)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"meaning":0.62`) || strings.Contains(string(b), "espresso") {
		t.Errorf("the hit is written %s", b)
	}
	var got Hit
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Meaning != 0.62 || got.Entry.ID != "m1" || got.Score != 0.8 || !slices.Equal(got.Terms, dense.Terms) {
		t.Errorf("read back %+v", got)
	}

	lexical := Hit{Hit: memory.Hit{Entry: memory.Entry{ID: "m2"}, Score: 1.5, Terms: []string{"deploy"}}}
	if b, _ := json.Marshal(lexical); strings.Contains(string(b), "meaning") {
		t.Errorf("a lexical hit is written %s", b)
	}

	for _, old := range []string{`{"id":"m3","kind":"fact","scope":"project","score":1.5,"terms":["deploy"]}`,
		`{"Entry":{"id":"m3","kind":"fact","text":"deploy"},"Score":1.5,"Terms":["deploy"],"Scope":"project"}`} {
		var h Hit
		if err := json.Unmarshal([]byte(old), &h); err != nil {
			t.Fatalf("%s: %v", old, err)
		}
		if h.Entry.ID != "m3" || h.Score != 1.5 || h.Scope != ScopeProject || h.Meaning != 0 ||
			!slices.Equal(h.Terms, []string{"deploy"}) {
			t.Errorf("%s read as %+v", old, h)
		}
	}
}
