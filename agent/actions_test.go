package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// userTexts are the texts of the user messages of a request.
func userTexts(r agenttest.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

func (h *harness) chat(id string) agent.Chat {
	h.t.Helper()
	c, err := h.a.Chat(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func TestRegenerateFailedAnswerSendsQuestionOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	id := h.newChat()
	h.srv.Push(agenttest.Reply{Status: 500, ErrorType: "server_error", Message: "boom"},
		agenttest.Reply{Status: 500}, agenttest.Reply{Status: 500}, agenttest.Reply{Status: 500})
	log := h.turn(id, "hello")
	if log.done.Err == nil {
		t.Fatal("the turn did not fail")
	}
	c := h.chat(id)
	if len(c.Messages) != 2 || c.Messages[1].Err == "" || c.Messages[0].ID == "" || c.Messages[1].ID == "" {
		t.Fatalf("after the failure the chat holds %+v", c.Messages)
	}
	failed := c.Messages[1].ID
	if err := h.a.Regenerate(context.Background(), id, failed); err != nil {
		t.Fatal(err)
	}
	log = h.until(id)
	if log.done.Err != nil || log.text() != "Echo: hello" {
		t.Fatalf("the retry answered %q (%v)", log.text(), log.done.Err)
	}
	st := of[agent.TurnStarted](log.events)[0]
	if st.UserID != "" || st.Replaces != failed || st.Text != "hello" || st.AnswerID == "" {
		t.Errorf("TurnStarted = %+v", st)
	}
	reqs := h.srv.Requests()
	if got := userTexts(reqs[len(reqs)-1]); len(got) != 1 || got[0] != "hello" {
		t.Errorf("the retry sent the user messages %q, want the question once", got)
	}
	c = h.chat(id)
	if len(c.Messages) != 2 || c.Messages[1].Text != "Echo: hello" || c.Messages[1].ID != st.AnswerID {
		t.Fatalf("after the retry the chat holds %+v", c.Messages)
	}
	if len(c.Branches) != 1 || c.Branches[0].At != 1 || c.Branches[0].Messages[0].Err == "" {
		t.Errorf("the failed answer is not kept as a branch: %+v", c.Branches)
	}
	if err := h.a.Regenerate(context.Background(), id, "no-such-id"); !errors.Is(err, agent.ErrMessageNotFound) {
		t.Errorf("Regenerate of an unknown message = %v", err)
	}
}

func TestResendReplacesLaterMessagesAndKeepsBranch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	id := h.newChat()
	h.turn(id, "first")
	h.turn(id, "second")
	first := h.chat(id).Messages[0].ID
	if err := h.a.Resend(context.Background(), id, first, "first, edited"); err != nil {
		t.Fatal(err)
	}
	log := h.until(id)
	st := of[agent.TurnStarted](log.events)[0]
	if st.Replaces != first || st.UserID == "" || st.Text != "first, edited" {
		t.Errorf("TurnStarted = %+v", st)
	}
	reqs := h.srv.Requests()
	if got := userTexts(reqs[len(reqs)-1]); len(got) != 1 || got[0] != "first, edited" {
		t.Errorf("the resend sent %q", got)
	}
	h.a.Wait()
	if err := h.a.Close(); err != nil {
		t.Fatal(err)
	}
	// The branch is in the chat file: a new agent reads it back.
	b, err := agent.New(agent.Options{Config: agent.DefaultConfig(), Paths: h.paths})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := b.Chat(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 2 || c.Messages[0].Text != "first, edited" || c.Messages[1].Text != "Echo: first, edited" {
		t.Fatalf("after the resend the chat holds %+v", c.Messages)
	}
	if len(c.Branches) != 1 || c.Branches[0].At != 0 || len(c.Branches[0].Messages) != 4 ||
		c.Branches[0].Messages[2].Text != "second" {
		t.Errorf("the old branch is not kept: %+v", c.Branches)
	}
}

func TestContinueExtendsCutAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	id := h.newChat()
	h.srv.Push(agenttest.Reply{Text: "The first half", Finish: "length"},
		agenttest.Reply{Text: " and the rest."})
	h.turn(id, "tell me")
	c := h.chat(id)
	ans := c.Messages[1]
	if !ans.Cut {
		t.Fatalf("the answer cut at the limit is not marked: %+v", ans)
	}
	if err := h.a.Continue(context.Background(), id, c.Messages[0].ID); err == nil {
		t.Error("Continue of a user message did not fail")
	}
	if err := h.a.Continue(context.Background(), id, ans.ID); err != nil {
		t.Fatal(err)
	}
	log := h.until(id)
	if st := of[agent.TurnStarted](log.events)[0]; st.Continues != ans.ID || st.AnswerID != ans.ID || st.UserID != "" {
		t.Errorf("TurnStarted = %+v", st)
	}
	if log.text() != " and the rest." {
		t.Errorf("the continuation streamed %q, want only the new text", log.text())
	}
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if n := len(last); n < 3 || last[n-2].Role != "assistant" || last[n-2].Content != "The first half" ||
		last[n-1].Role != "user" {
		t.Errorf("the continuation's request ends with %+v", last[max(0, n-3):])
	}
	c = h.chat(id)
	if len(c.Messages) != 2 || c.Messages[1].Text != "The first half and the rest." || c.Messages[1].Cut {
		t.Fatalf("after continuing the chat holds %+v", c.Messages)
	}
}

func TestDeleteMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	id := h.newChat()
	h.turn(id, "one")
	h.turn(id, "two")
	c := h.chat(id)
	if err := h.a.DeleteMessage(id, c.Messages[1].ID); err != nil {
		t.Fatal(err)
	}
	c = h.chat(id)
	if len(c.Messages) != 3 || c.Messages[1].Text != "two" {
		t.Fatalf("after deleting the first answer the chat holds %+v", c.Messages)
	}
	if err := h.a.DeleteMessage(id, "gone"); !errors.Is(err, agent.ErrMessageNotFound) {
		t.Errorf("deleting an unknown message = %v", err)
	}
}

func TestRecallDoneReportsPinnedAndMarksThemUsed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	pinned, _, err := st.Add(memory.Entry{Kind: memory.KindPreference, Text: "Answer in Chinese", Pinned: true,
		Source: memory.SourceUser})
	if err != nil {
		t.Fatal(err)
	}
	id := h.newChat()
	log := h.turn(id, "what is the weather")
	rd := of[agent.RecallDone](log.events)[0]
	if len(rd.Pinned) != 1 || rd.Pinned[0].Entry.ID != pinned.ID || rd.Pinned[0].Scope != agent.ScopeGlobal {
		t.Fatalf("RecallDone.Pinned = %+v", rd.Pinned)
	}
	h.a.Wait()
	for _, e := range st.List() {
		if e.ID == pinned.ID && e.Uses == 0 {
			t.Error("the pinned memory in the prompt is not marked used")
		}
	}
	if c := h.chat(id); len(c.Messages[1].Pinned) != 1 {
		t.Error("the answer does not record the pinned memories of its prompt")
	}
}

func TestOldChatsGetMessageIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := agent.DefaultPaths(filepath.Join(dir, "config"), filepath.Join(dir, "data"), filepath.Join(dir, "state"))
	if err := os.MkdirAll(paths.ChatsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	old := `{"id":"c1","title":"t","messages":[{"role":"user","text":"hi"},{"role":"assistant","text":"hello"}]}`
	if err := os.WriteFile(filepath.Join(paths.ChatsDir(), "c1.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{Config: agent.DefaultConfig(), Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, err := a.Chat("c1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Messages[0].ID == "" || c.Messages[1].ID == "" || c.Messages[0].ID == c.Messages[1].ID {
		t.Fatalf("the loaded messages have IDs %q and %q", c.Messages[0].ID, c.Messages[1].ID)
	}
}

func TestSearchChats(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	a := h.newChat()
	h.turn(a, "How do I deploy the frontend?")
	b := h.newChat()
	h.turn(b, "部署脚本怎么改？")
	if got := h.a.SearchChats("DEPLOY frontend", 10); len(got) < 2 || got[0].ChatID != a || got[0].MsgID != "" ||
		got[1].MsgID != h.chat(a).Messages[0].ID || got[1].Snippet != "How do I deploy the frontend?" {
		t.Fatalf("search for deploy frontend = %+v", got)
	}
	if got := h.a.SearchChats("脚本", 10); len(got) < 2 || got[0].ChatID != b || got[0].MsgID != "" || got[1].Role != agent.RoleUser {
		t.Fatalf("search for 脚本 = %+v", got)
	}
	if got := h.a.SearchChats("deploy", 1); len(got) != 1 {
		t.Errorf("limit 1 gave %d matches", len(got))
	}
	if got := h.a.SearchChats("  ", 10); got != nil {
		t.Errorf("an empty search found %+v", got)
	}
}
