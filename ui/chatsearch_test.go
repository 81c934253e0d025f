package ui

import (
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"engram/agent"
)

func TestChatSearchJumpsToMessage(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		a, _ := fb.NewChat()
		fb.NewChat()
		fb.with(a.ID, func(c *Chat) {
			c.Title = "Deploying"
			for i := range 40 {
				text := "Filler message number " + strconv.Itoa(i) + ".\n\nWith a second paragraph."
				if i == 12 {
					text = "Deploys go through the blue-green pipeline."
				}
				role := agent.RoleUser
				if i%2 == 1 {
					role = agent.RoleAssistant
				}
				c.Messages = append(c.Messages, Message{ID: "a" + strconv.Itoa(i), Role: role, Text: text})
			}
		})
	})
	if h.u.current != "chat2" {
		t.Fatalf("chat %s is shown, want the newest", h.u.current)
	}
	h.u.shortcut(&desktop.CustomShortcut{KeyName: fyne.KeyK, Modifier: fyne.KeyModifierShortcutDefault})
	cs := h.u.list.search
	if h.w.Canvas().Focused() != cs.entry {
		t.Fatal("Ctrl+K did not focus the chat search")
	}
	test.Type(cs.entry, "BLUE-green")
	h.waitFor("the matches", func() bool { return cs.query == "BLUE-green" })
	if len(cs.matches) != 1 || cs.matches[0].MsgID != "a12" || h.u.list.list.Visible() || !cs.box.Visible() {
		t.Fatalf("matches %+v; the chat list visible %v", cs.matches, h.u.list.list.Visible())
	}
	cs.results.Select(0)
	h.waitFor("the chat", func() bool { return h.u.current == "chat1" && h.u.currentSession().loaded })
	sc := h.u.pane.scroll
	v := h.u.pane.views[12]
	if y := v.root.Position().Y; sc.Offset.Y == 0 || sc.Offset.Y > y+1 || y >= sc.Offset.Y+sc.Size().Height {
		t.Fatalf("the view is scrolled to %v; the message is at %v", sc.Offset.Y, y)
	}
	test.Type(cs.entry, "no such words anywhere")
	h.waitFor("no match", func() bool { return strings.HasSuffix(cs.query, "anywhere") })
	if len(cs.matches) != 0 || !cs.none.Visible() {
		t.Errorf("an unmatched search shows %d matches", len(cs.matches))
	}
	cs.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if cs.entry.Text != "" || !h.u.list.list.Visible() || cs.box.Visible() {
		t.Error("Esc did not bring back the chat list")
	}
}
