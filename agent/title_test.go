package agent_test

import (
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/agent/prompts"
)

// titleOf is chat id's title once the agent's background work is done.
func (h *harness) titleOf(id string) string {
	h.t.Helper()
	h.a.Wait()
	c, err := h.a.Chat(id)
	if err != nil {
		h.t.Fatalf("Chat: %v", err)
	}
	return c.Title
}

// After the first answer the model names the chat: its answer, cleaned of
// quotes, a label, a second line and the final full stop, replaces the title
// the first message gave, and ChatTitled says so.
func TestChatNamedByModel(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Text: "Use gofmt: it picks tabs for you."})
	h.srv.PushTitle(agenttest.Reply{Text: "Title: \"Tabs versus spaces in Go.\"\nIt is about formatting."})
	id := h.newChat()
	log := h.turn(id, "Should I use tabs or spaces when writing Go code, and why?")
	if log.done.Err != nil {
		t.Fatalf("turn: %v", log.done.Err)
	}
	if c, _ := h.a.Chat(id); c.Title != "Should I use tabs or spaces…" && c.Title != "Tabs versus spaces in Go" {
		t.Errorf("title when the answer ended = %q", c.Title)
	}
	e := h.next(func(e agent.Event) bool { _, ok := e.(agent.ChatTitled); return ok }).(agent.ChatTitled)
	if e.ChatID != id || e.Title != "Tabs versus spaces in Go" {
		t.Errorf("ChatTitled = %+v", e)
	}
	if got := h.titleOf(id); got != "Tabs versus spaces in Go" {
		t.Errorf("title = %q", got)
	}
	reqs := h.srv.TitleRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d title requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.System() != prompts.Title || !strings.Contains(string(r.Body), "tabs or spaces") ||
		!strings.Contains(string(r.Body), "gofmt") || len(r.Tools) > 0 {
		t.Errorf("title request: %s", r.Body)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d chat requests, want 1", n)
	}
	// The second turn asks for no title.
	h.srv.Push(agenttest.Reply{Text: "Yes."})
	h.turn(id, "Even in tests?")
	h.a.Wait()
	if n := len(h.srv.TitleRequests()); n != 1 {
		t.Errorf("%d title requests after the second turn, want 1", n)
	}
}

// When the model gives no usable title the chat keeps the one its first
// message gave it, silently.
func TestChatNamingFailsQuietly(t *testing.T) {
	for name, reply := range map[string]agenttest.Reply{
		"error":   {Status: 500, Message: "boom"},
		"empty":   {Text: "  \n"},
		"quotes":  {Text: "\"…\""},
		"secret":  {Text: "sk-proj-" + strings.Repeat("Ab3xK9mQ", 6)},
		"cut off": {Text: "Tabs and spaces in Go", PieceSize: 4, CutAfter: 2},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			h.srv.Push(agenttest.Reply{Text: "Tabs."})
			h.srv.PushTitle(reply)
			id := h.newChat()
			h.turn(id, "Tabs or spaces in Go?")
			if got := h.titleOf(id); got != "Tabs or spaces in Go" {
				t.Errorf("title = %q, want the first message's", got)
			}
			if n := len(h.srv.TitleRequests()); n != 1 {
				t.Errorf("%d title requests, want 1", n)
			}
			for _, e := range h.drain() {
				switch e := e.(type) {
				case agent.ChatTitled:
					t.Errorf("ChatTitled %+v", e)
				case agent.Notice:
					t.Errorf("Notice %+v", e)
				}
			}
		})
	}
}

// A chat the person renamed while the model was naming it keeps their name.
func TestChatRenamedBeforeItIsNamed(t *testing.T) {
	h := newHarness(t, nil, nil)
	hold := make(chan struct{})
	h.srv.Push(agenttest.Reply{Text: "Tabs."})
	h.srv.PushTitle(agenttest.Reply{Text: "Go indentation", Hold: hold})
	id := h.newChat()
	h.turn(id, "Tabs or spaces in Go?")
	deadline := time.Now().Add(guard)
	for len(h.srv.TitleRequests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no title request")
		}
		time.Sleep(time.Millisecond)
	}
	if err := h.a.RenameChat(id, "My formatting question"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if got := h.titleOf(id); got != "My formatting question" {
		t.Errorf("title = %q, want the person's", got)
	}
	for _, e := range h.drain() {
		if e, ok := e.(agent.ChatTitled); ok {
			t.Errorf("ChatTitled %+v", e)
		}
	}
}

// A temporary chat is never sent to the model to be named.
func TestTemporaryChatIsNotNamed(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Text: "Tabs."})
	h.srv.PushTitle(agenttest.Reply{Text: "Go indentation"})
	id := h.a.NewTemporaryChat().ID
	h.turn(id, "Tabs or spaces in Go?")
	if got := h.titleOf(id); got != "Tabs or spaces in Go" {
		t.Errorf("title = %q", got)
	}
	if n := len(h.srv.TitleRequests()); n != 0 {
		t.Errorf("%d title requests for a temporary chat", n)
	}
}
