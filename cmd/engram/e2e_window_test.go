//go:build e2e

package main

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"engram/agent/agenttest"
	"engram/memory"
)

// windowMemories are TestE2EWindow's memories: three name "deploy" (or
// 部署), the others do not.
var windowMemories = []memory.Entry{
	{Kind: memory.KindCorrection, Text: "Deploy with the dry-run flag first, then --apply"},
	{Kind: memory.KindFact, Text: "bluebird deploys to Cloudflare Pages on every merge; 部署前先跑测试"},
	{Kind: memory.KindLesson, Text: "A Friday deploy locked the database last time: migrate on staging first"},
	{Kind: memory.KindPreference, Text: "Prefers short answers with a code example"},
	{Kind: memory.KindFact, Text: "Drinks green tea, no coffee after 3 pm"},
	{Kind: memory.KindFact, Text: "用户住在杭州，周末喜欢爬山"},
}

const (
	askSecret = "Remember my GitHub token"
	askRefuse = "Write a very long answer"
	// secretDistilled is what distillation proposes after askSecret: a
	// secret, which is not saved; its notice follows the finished answer.
	// copiedSelection is the part of the first answer the test selects and
	// copies.
	copiedSelection = "kens in memory: store"
	secretDistilled = `[{"kind":"fact","text":"The GitHub token is ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R","scope":"global"}]`
)

// TestE2EWindow saves, in English and in Chinese (zh-*.png), screenshots of
// what the window shows where it was rough: a finished answer followed by
// a notice (no pending bubble), part of an answer selected and copied (then
// pasted and sent), the answer's two versions after Regenerate (‹ 2/2 ›,
// then ‹ 1/2 ›, from which the chat goes on), an endpoint's refusal, the shortcut sheet, the focus moved to the toolbar,
// the inspector's search for a word three memories contain, and the window
// at 720 and 600 px wide with the inspector open.
func TestE2EWindow(t *testing.T) {
	for _, run := range []struct {
		prefix string
		env    []string
	}{
		{"", []string{"LANG=en_US.UTF-8", "LANGUAGE=", "LC_ALL="}},
		{"zh-", []string{"LANG=zh_CN.UTF-8", "LANGUAGE=", "LC_ALL="}},
	} {
		t.Run(strings.TrimSuffix(run.prefix, "-")+"window", func(t *testing.T) {
			e := newE2E(t)
			e.srv.Models = []string{"fake-model"}
			var answers atomic.Int32
			e.srv.Respond = func(r agenttest.Request) agenttest.Reply {
				switch {
				case isDistill(r):
					return agenttest.Reply{Text: secretDistilled}
				case r.LastUser() == askRefuse:
					return agenttest.Reply{Status: 400, Message: "max_tokens is too large: 100000."}
				}
				if answers.Add(1) > 1 {
					return agenttest.Reply{Text: "Tokens belong in a password manager, not in my memory."}
				}
				return agenttest.Reply{Text: "I will not keep tokens in memory: store it in your password manager."}
			}
			s := e.open(setup{Config: e.config(), Memories: windowMemories, Env: run.env})
			defer s.stop()
			s.send(askSecret)
			waitFor(t, 20*time.Second, "the distillation", func() bool {
				for _, r := range e.srv.Requests() {
					if isDistill(r) {
						return true
					}
				}
				return false
			})
			time.Sleep(1500 * time.Millisecond)
			s.shot(run.prefix + "notice")
			if m := s.waitAnswer(10*time.Second, askSecret); m.Text == "" || m.Err != "" {
				t.Errorf("the answer before the notice: %+v", m)
			}

			// The answer's actions (copy, select text, regenerate, delete)
			// are drawn at the right of its header.
			s.xdo("mousemove", "1173", "166", "click", "1")
			time.Sleep(700 * time.Millisecond)
			s.xdo("mousemove", "384", "206", "mousedown", "1", "mousemove", "460", "206", "mousemove", "530", "206", "mouseup", "1")
			s.xdo("key", "ctrl+c")
			time.Sleep(500 * time.Millisecond)
			s.shot(run.prefix + "selection")
			s.xdo("mousemove", "1173", "166", "click", "1")
			time.Sleep(500 * time.Millisecond)
			s.xdo("mousemove", "1213", "166", "click", "1")
			waitFor(t, 20*time.Second, "the regenerated answer", func() bool { return answers.Load() >= 2 })
			time.Sleep(1500 * time.Millisecond)
			s.shot(run.prefix + "versions-2")
			s.xdo("mousemove", "1017", "166", "click", "1")
			time.Sleep(900 * time.Millisecond)
			s.shot(run.prefix + "versions")
			if m := s.waitAnswer(10*time.Second, askSecret); !strings.HasPrefix(m.Text, "I will not keep tokens") {
				t.Errorf("after ‹ the chat goes on from %q, want the first answer", m.Text)
			}

			// What was copied is pasted into the message box and sent.
			s.focusMessageBox()
			s.xdo("key", "ctrl+v", "Return")
			waitFor(t, 20*time.Second, "the pasted selection sent", func() bool {
				for _, c := range s.chats() {
					if _, ok := answerTo(c, copiedSelection); ok {
						return true
					}
				}
				return false
			})

			s.send(askRefuse)
			waitFor(t, 20*time.Second, "the refusal in the chat file", func() bool {
				for _, c := range s.chats() {
					if m, ok := answerTo(c, askRefuse); ok && m.Err != "" {
						return true
					}
				}
				return false
			})
			time.Sleep(700 * time.Millisecond)
			s.shot(run.prefix + "refused")

			s.xdo("key", "ctrl+slash")
			time.Sleep(700 * time.Millisecond)
			s.shot(run.prefix + "shortcuts")
			s.xdo("key", "Escape")

			// Ctrl+4 goes to the toolbar, and Tab on: the focus is marked.
			s.xdo("key", "ctrl+4", "Tab")
			time.Sleep(500 * time.Millisecond)
			s.shot(run.prefix + "focus")

			s.xdo("key", "ctrl+f")
			s.typeText("deploy")
			time.Sleep(900 * time.Millisecond)
			s.shot(run.prefix + "search-three")
			s.xdo("key", "Escape")

			// Narrow: the toolbar folds into ⋯, and the inspector opens as
			// a drawer over the chat.
			for _, width := range []string{"720", "600"} {
				s.xdo("windowsize", s.window(), width, "760")
				time.Sleep(900 * time.Millisecond)
				s.xdo("key", "ctrl+f")
				time.Sleep(700 * time.Millisecond)
				s.shot(run.prefix + "width-" + width)
				s.xdo("key", "Escape")
			}
		})
	}
}
