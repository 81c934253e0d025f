package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
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
		return len(ah.u.chats) == 1 && ah.u.chats[0].Title == "Tabs or spaces in Go"
	})
	// "New chat" stays once, on the button that makes one.
	if shown := shownText(ah.u.list.root); !strings.Contains(shown, "Tabs or spaces in Go") ||
		strings.Count(shown, "New chat") != 1 {
		t.Errorf("while the answer streams the chat list shows:\n%s", shown)
	}
}

// Once the answer ends the model's short title replaces the one the first
// message gave, in the chat list.
func TestChatRetitledByModel(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Text: "Use gofmt, it picks tabs."})
		ah.srv.PushTitle(agenttest.Reply{Text: "\"Go indentation\""})
	})
	in := ah.u.pane.input
	in.SetText("Should I use tabs or spaces when writing Go code?")
	pressReturn(in, false)
	ah.waitFor("the model's title", func() bool {
		return len(ah.u.chats) == 1 && ah.u.chats[0].Title == "Go indentation"
	})
	if shown := shownText(ah.u.list.root); !strings.Contains(shown, "Go indentation") {
		t.Errorf("the chat list shows:\n%s", shown)
	}
}

// The Temporary button opens a chat memory does not touch: it is named so
// in the list, its request carries no memory and no memory tools, and no
// chat file is written for it.
func TestTemporaryChatFromTheWindow(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Text: "Noted, for now."})
	})
	test.Tap(button(t, ah.u.list.root, "Temporary"))
	c := ah.u.currentSession().info
	if !c.Temporary {
		t.Fatalf("the chat opened is %+v, want a temporary one", c)
	}
	if shown := shownText(ah.u.list.root); !strings.Contains(shown, "Temporary chat") ||
		!strings.Contains(shown, "no memory, not kept") {
		t.Errorf("the chat list shows:\n%s", shown)
	}
	in := ah.u.pane.input
	in.SetText("my sister lives in Graz")
	pressReturn(in, false)
	ah.waitFor("the answer", func() bool {
		a := ah.u.currentSession().lastAnswer()
		return a != nil && a.Text == "Noted, for now." && !ah.u.currentSession().busy
	})
	if shown := shownText(ah.u.pane.root); !strings.Contains(shown, "A temporary chat: no memory is used") {
		t.Errorf("the answer does not say the chat is temporary:\n%s", shown)
	}
	if reqs := ah.srv.Requests(); len(reqs) != 1 || len(reqs[0].Tools) != 0 {
		t.Errorf("requests %d, tools %v: want one request without memory tools", len(reqs), reqs[0].Tools)
	}
	if _, err := os.Stat(filepath.Join(ah.paths.ChatsDir(), c.ID+".json")); !os.IsNotExist(err) {
		t.Errorf("a temporary chat wrote its file (%v)", err)
	}
}

// With auto-recall off, the answer says that pinned memories are still in
// the prompt (they are), rather than that no memory is used.
func TestAutoRecallOffSaysPinnedStillIncluded(t *testing.T) {
	ah := newAgentHarness(t, func(ah *agentHarness) {
		st, err := ah.ag.Memory(agent.ScopeGlobal, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindPreference, Text: "Answer in British English.",
			Source: memory.SourceUser, Pinned: true}); err != nil {
			t.Fatal(err)
		}
		ah.srv.Push(agenttest.Reply{Text: "Colour it is."})
	})
	ah.u.bar.recall.SetChecked(false)
	a := ah.ask("which spelling of colour?")
	reqs := ah.srv.Requests()
	if a.Err != "" || len(reqs) != 1 || !strings.Contains(reqs[0].System(), "British English") {
		t.Fatalf("answer error %q, %d requests: the pinned memory should be in the prompt", a.Err, len(reqs))
	}
	if shown := shownText(ah.u.pane.root); !strings.Contains(shown, "pinned memories are still included") {
		t.Errorf("the answer shows:\n%s", shown)
	}
}
