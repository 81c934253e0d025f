package agent_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/agent/chat"
)

// assistantTexts are the texts of the assistant messages of a request.
func assistantTexts(r agenttest.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			out = append(out, m.Content)
		}
	}
	return out
}

// After a regeneration, showing the first answer again makes the chat go
// on from it: the next turn sends it, not the regenerated one.
func TestShowVersionPicksTheHistory(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	id := h.newChat()
	h.srv.Push(agenttest.Reply{Text: "first answer"}, agenttest.Reply{Text: "second answer"},
		agenttest.Reply{Text: "third answer"})
	h.turn(id, "hello")
	first := h.chat(id).Messages[1].ID
	if err := h.a.Regenerate(context.Background(), id, first); err != nil {
		t.Fatal(err)
	}
	h.until(id)
	c := h.chat(id)
	second := c.Messages[1].ID
	if vs, shown := c.Versions(1); !slices.Equal(vs, []string{first, second}) || shown != 1 {
		t.Fatalf("after Regenerate: versions %v, shown %d", vs, shown)
	}
	if err := h.a.ShowVersion(id, second, first); err != nil {
		t.Fatal(err)
	}
	c = h.chat(id)
	if c.Messages[1].Text != "first answer" {
		t.Fatalf("the chat shows %q", c.Messages[1].Text)
	}
	if vs, shown := c.Versions(1); !slices.Equal(vs, []string{first, second}) || shown != 0 {
		t.Fatalf("after ShowVersion: versions %v, shown %d", vs, shown)
	}
	h.turn(id, "and then?")
	reqs := h.srv.Requests()
	if got := assistantTexts(reqs[len(reqs)-1]); !slices.Equal(got, []string{"first answer"}) {
		t.Errorf("the next turn sent the answers %q", got)
	}
	if err := h.a.ShowVersion(id, c.Messages[1].ID, "nope"); !errors.Is(err, chat.ErrNoVersion) {
		t.Errorf("ShowVersion of an unknown version = %v", err)
	}
	if err := h.a.ShowVersion(id, "nope", first); !errors.Is(err, agent.ErrMessageNotFound) {
		t.Errorf("ShowVersion of an unknown message = %v", err)
	}
}
