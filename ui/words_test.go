package ui

import (
	"strings"
	"testing"

	"engram/agent/agenttest"
)

// TestAgentErrorsInChinese: under LANG=zh_CN the agent's errors and
// notices read in Chinese in the window, the server's own words quoted as
// they are: a broken stream, the retries of a failing endpoint and the
// error that ends them, a 400 refusal.
func TestAgentErrorsInChinese(t *testing.T) {
	inChinese(t)
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Text: "Half an answer", CutAfter: 2},
			agenttest.Reply{Status: 500}, agenttest.Reply{Status: 500}, agenttest.Reply{Status: 500},
			agenttest.Reply{Status: 500},
			agenttest.Reply{Status: 400, Message: "max_tokens is too large: 100000."})
	})
	broken := ah.ask("one")
	if want := "模型还没说完，回答就中断了"; !strings.HasPrefix(broken.Err, want) {
		t.Errorf("broken stream: %q, want it to start %q", broken.Err, want)
	}
	failed := ah.ask("two")
	if want := "端点出现服务器错误（500），重试后依然失败。请稍后再试"; failed.Err != want {
		t.Errorf("server error: %q, want %q", failed.Err, want)
	}
	if len(failed.notices) == 0 {
		t.Error("no retry notice")
	}
	for _, n := range failed.notices {
		if !strings.HasPrefix(n, "端点出现服务器错误；") || !strings.Contains(n, "后重试") {
			t.Errorf("retry notice %q is not in Chinese", n)
		}
	}
	refused := ah.ask("three")
	if want := "端点拒绝了请求（400）。服务器原话：max_tokens is too large: 100000"; refused.Err != want {
		t.Errorf("refusal: %q, want %q", refused.Err, want)
	}
	shown := shownText(ah.u.pane.root)
	for _, english := range []string{"The endpoint", "retrying", "The answer broke off"} {
		if strings.Contains(shown, english) {
			t.Errorf("the window shows English %q:\n%s", english, shown)
		}
	}
}

// TestSavedErrorInChinese: an error saved in a chat file (in English, with
// its wording key) reads in Chinese when the chat is opened again under
// LANG=zh_CN, and the file keeps the English.
func TestSavedErrorInChinese(t *testing.T) {
	inChinese(t)
	ah := newAgentHarness(t, func(ah *agentHarness) {
		ah.srv.Push(agenttest.Reply{Status: 400, Message: "max_tokens is too large: 100000."})
	})
	live := ah.ask("one")
	c, err := ah.ag.Chat(ah.u.current)
	if err != nil || len(c.Messages) != 2 {
		t.Fatalf("the chat holds %d messages (%v), want the question and the failed answer", len(c.Messages), err)
	}
	saved := c.Messages[1]
	if !strings.HasPrefix(saved.Err, "The endpoint refused") || saved.ErrKey == "" {
		t.Fatalf("saved error %q with key %q, want the English and its key", saved.Err, saved.ErrKey)
	}
	if got := savedMessage(saved).Err; got != live.Err || !strings.HasPrefix(got, "端点拒绝了请求（400）") {
		t.Errorf("the reopened chat shows %q, want the live error %q", got, live.Err)
	}
}
