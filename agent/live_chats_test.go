package agent_test

import (
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
)

// chatChanged matches the ChatChanged of chat id.
func chatChanged(id string) func(agent.Event) bool {
	return func(e agent.Event) bool {
		c, ok := e.(agent.ChatChanged)
		return ok && c.ChatID == id
	}
}

// texts are the texts of a chat's messages.
func texts(t *testing.T, a *agent.Agent, id string) []string {
	t.Helper()
	c, err := a.Chat(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range c.Messages {
		out = append(out, m.Text)
	}
	return out
}

func TestChatsOfAnotherProcessShowLive(t *testing.T) {
	h := newHarness(t, nil, nil)
	other := newHarness(t, nil, func(o *agent.Options) { o.Paths = h.paths }) // engramctl chat, a second window
	other.srv.Push(agenttest.Reply{Text: "first answer"}, agenttest.Reply{Text: "second answer"})

	// A chat another process starts is reported and listed.
	id := other.newChat()
	other.turn(id, "first question")
	h.collect("a chat started elsewhere", chatChanged(id))
	if got := texts(t, h.a, id); len(got) != 2 || got[1] != "first answer" {
		t.Fatalf("the chat from elsewhere = %q", got)
	}

	// The window answers in it; the other process's next turn is merged
	// into the window's copy, and the window's own write reported nothing.
	h.srv.Push(agenttest.Reply{Text: "the window's answer"})
	h.turn(id, "a question in the window")
	time.Sleep(400 * time.Millisecond) // past the watcher's quiet time
	for _, e := range h.drain() {
		if c, ok := e.(agent.ChatChanged); ok {
			t.Fatalf("the agent's own write was reported as %#v", c)
		}
	}
	other.collect("the window's turn, seen by the other process", chatChanged(id))
	other.turn(id, "second question")
	h.collect("a turn added elsewhere", chatChanged(id))
	want := []string{"first question", "first answer", "a question in the window", "the window's answer",
		"second question", "second answer"}
	if got := texts(t, h.a, id); len(got) != len(want) {
		t.Fatalf("merged chat = %q, want %q", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("merged chat = %q, want %q", got, want)
			}
		}
	}
}
