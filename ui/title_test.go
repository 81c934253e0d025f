package ui

import (
	"strings"
	"testing"

	"engram/agent/agenttest"
)

// A new chat is titled from its first message as soon as it is sent, not
// "New chat" until the answer ends.
func TestChatTitledWhenSent(t *testing.T) {
	hold := make(chan struct{})
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Text: "Use gofmt, it picks tabs.", Hold: hold})
	})
	defer close(hold)
	in := ah.u.pane.input
	in.SetText("Tabs or spaces in Go?")
	pressReturn(in, false)
	ah.waitFor("the answer to start", func() bool {
		a := ah.u.currentSession().lastAnswer()
		return a != nil && a.Text != ""
	})
	if !ah.u.currentSession().busy {
		t.Fatal("the turn ended before the title was checked")
	}
	ah.waitFor("the title", func() bool {
		return len(ah.u.chats) == 1 && ah.u.chats[0].Title == "Tabs or spaces in Go?"
	})
	// "New chat" stays once, on the button that makes one.
	if shown := shownText(ah.u.list.root); !strings.Contains(shown, "Tabs or spaces in Go?") ||
		strings.Count(shown, "New chat") != 1 {
		t.Errorf("while the answer streams the chat list shows:\n%s", shown)
	}
}
