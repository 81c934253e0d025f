package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// chatEnv is a fake endpoint and a temporary home for engramctl chat.
type chatEnv struct {
	srv  *agenttest.Server
	vars map[string]string
	home string
}

func newChatEnv(t *testing.T) *chatEnv {
	t.Helper()
	return newChatEnvOn(t, agenttest.NewServer())
}

// newChatEnvOn is newChatEnv on the fake endpoint srv, which it closes at
// the end of the test.
func newChatEnvOn(t *testing.T, srv *agenttest.Server) *chatEnv {
	t.Helper()
	t.Cleanup(srv.Close)
	home := t.TempDir()
	return &chatEnv{srv: srv, home: home, vars: map[string]string{
		"OPENAI_BASE_URL": srv.BaseURL(),
		"OPENAI_API_KEY":  "sk-cli-test",
		"ENGRAM_MODEL":    "cli-model",
		"XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_DATA_HOME":   filepath.Join(home, "data"),
		"XDG_STATE_HOME":  filepath.Join(home, "state"),
	}}
}

// run runs engramctl with args and returns the exit code, stdout, stderr.
func (e *chatEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errw bytes.Buffer
	code := runIO(context.Background(), args, strings.NewReader("from stdin"), &out, &errw,
		func(k string) string { return e.vars[k] })
	return code, out.String(), errw.String()
}

func (e *chatEnv) globalStore(t *testing.T) *memory.Store {
	t.Helper()
	st, err := memory.Open(filepath.Join(e.vars["XDG_CONFIG_HOME"], "engram", "memory.json"), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var chatIDLine = regexp.MustCompile(`(?m)^chat: (\S+)$`)

func TestChatStreamsAnswerRecallsAndWaitsForDistillation(t *testing.T) {
	e := newChatEnv(t)
	st := e.globalStore(t)
	for _, text := range []string{"The user's sister is called Ada.", "The user prefers short answers.",
		"The user's laptop runs Debian."} {
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: text, Source: memory.SourceUser}); err != nil {
			t.Fatal(err)
		}
	}
	e.srv.Push(
		agenttest.Reply{Text: "Your sister is Ada, and I will remember that you visit her in Porto."},
		agenttest.Reply{Text: `[{"kind":"fact","text":"The user visits their sister Ada in Porto."}]`},
	)
	code, out, errOut := e.run(t, "chat", "What is my sister called? I visit her in Porto every summer.")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if out != "Your sister is Ada, and I will remember that you visit her in Porto.\n" {
		t.Errorf("stdout = %q", out)
	}
	if !strings.Contains(errOut, "recalled 1 memory") || !strings.Contains(errOut, "sister is called Ada") {
		t.Errorf("stderr lacks the recalled memory:\n%s", errOut)
	}
	if !strings.Contains(errOut, "saved 1 memory") {
		t.Errorf("stderr lacks the distilled memory:\n%s", errOut)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the turn and its distillation", len(reqs))
	}
	if reqs[0].Model != "cli-model" || reqs[0].Auth != "Bearer sk-cli-test" || !strings.Contains(reqs[0].System(), "Ada") {
		t.Fatalf("first request: model %q auth %q system:\n%s", reqs[0].Model, reqs[0].Auth, reqs[0].System())
	}
	if err := st.Reload(); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, m := range st.List() {
		found = found || (m.Text == "The user visits their sister Ada in Porto." && m.Source == memory.SourceAuto)
	}
	if !found {
		t.Errorf("the distilled memory is not in memory.json: %+v", st.List())
	}

	// --chat continues the chat; --no-recall keeps memories out.
	m := chatIDLine.FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no chat ID on stderr:\n%s", errOut)
	}
	e.srv.Push(agenttest.Reply{Text: "Sure."})
	code, _, errOut = e.run(t, "chat", "--chat", m[1], "--no-recall", "ok")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	last := e.srv.Requests()[2]
	if strings.Contains(last.System(), "Ada") || !strings.Contains(errOut, "recall: off") {
		t.Errorf("--no-recall: memory in the prompt or not said:\n%s", errOut)
	}
	if len(last.Messages) != 4 || !strings.Contains(last.Messages[1].Content, "sister") {
		t.Errorf("--chat did not continue the chat: %+v", last.Messages)
	}
	// --no-recall is for that turn only.
	a, err := agent.New(agent.Options{Paths: enginePaths(func(k string) string { return e.vars[k] })})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if c, err := a.Chat(m[1]); err != nil || !c.AutoRecall || len(c.Messages) != 4 {
		t.Errorf("chat after --no-recall: %+v, %v", c.Info, err)
	}
}

func TestChatProjectAndStdin(t *testing.T) {
	e := newChatEnv(t)
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("PROJECT RULES: use tabs."), 0o644); err != nil {
		t.Fatal(err)
	}
	e.srv.Push(agenttest.Reply{Text: "Tabs."})
	code, out, errOut := e.run(t, "chat", "--project", proj, "-")
	if code != exitOK || out != "Tabs.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	r := e.srv.Requests()[0]
	if !strings.Contains(r.System(), "PROJECT RULES: use tabs.") || r.LastUser() != "from stdin" {
		t.Errorf("request: last user %q, system:\n%s", r.LastUser(), r.System())
	}
}

func TestChatErrors(t *testing.T) {
	e := newChatEnv(t)
	if code, _, errOut := e.run(t, "chat"); code != exitUsage || !strings.Contains(errOut, "usage") {
		t.Errorf("no message: exit %d, %s", code, errOut)
	}
	if code, _, errOut := e.run(t, "chat", "--chat", "20260101-000000-deadbeef", "hi"); code != exitNotFound {
		t.Errorf("unknown chat: exit %d, %s", code, errOut)
	}
	e.srv.Push(agenttest.Reply{Status: 401, Message: "Incorrect API key provided"})
	code, _, errOut := e.run(t, "chat", "hello there")
	if code != exitError || !strings.Contains(errOut, "rejected the API key") || strings.Contains(errOut, "sk-cli-test") {
		t.Errorf("401: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestChatForgetLeavesNoCopyInChats: a forget the model makes through
// engramctl chat takes the memory's text out of the chat files, as the
// agent's does (the search result an earlier run recorded included).
func TestChatForgetLeavesNoCopyInChats(t *testing.T) {
	e := newChatEnv(t)
	st := e.globalStore(t)
	x, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "The user's boat is called Albatrossa.", Source: memory.SourceTool})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Respond = func(r agenttest.Request) agenttest.Reply {
		switch {
		case len(r.Tools) == 0: // distillation
			return agenttest.Reply{Text: "[]"}
		case strings.Contains(r.LastUser(), "forget") && len(r.ToolResults()) == 1:
			return agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "f", Name: "memory_forget", Args: `{"id":"` + x.ID + `"}`}}}
		case len(r.ToolResults()) > 0:
			return agenttest.Reply{Text: "Done."}
		}
		return agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "s", Name: "memory_search", Args: `{"query":"boat"}`}}}
	}
	code, _, errOut := e.run(t, "chat", "what is my boat called?")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	chats := filepath.Join(e.vars["XDG_DATA_HOME"], "engram", "chats")
	holds := func() bool {
		files, _ := filepath.Glob(filepath.Join(chats, "*"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "Albatrossa") {
				return true
			}
		}
		return false
	}
	if !holds() {
		t.Fatalf("the chat files do not hold the memory before the forget: the test shows nothing")
	}
	id := chatIDLine.FindStringSubmatch(errOut)[1]
	if code, _, errOut = e.run(t, "chat", "--chat", id, "forget my boat"); code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "Forgot memory "+x.ID) {
		t.Fatalf("the memory was not forgotten:\n%s", errOut)
	}
	if holds() {
		t.Error("a chat file still holds the forgotten memory's text")
	}
}

// engramctl chat --temporary answers without memory and keeps nothing:
// no chat file, no memory, no distillation.
func TestChatTemporaryKeepsNothing(t *testing.T) {
	e := newChatEnv(t)
	e.srv.Push(agenttest.Reply{Text: "Noted, for now."})
	code, out, errOut := e.run(t, "chat", "--temporary", "my sister lives in Graz")
	if code != exitOK || out != "Noted, for now.\n" || !strings.Contains(errOut, "chat: temporary, not kept") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no distillation)", n)
	}
	if files, _ := filepath.Glob(filepath.Join(e.vars["XDG_DATA_HOME"], "engram", "chats", "*.json")); len(files) != 0 {
		t.Errorf("chat files %v", files)
	}
	if n := len(e.globalStore(t).List()); n != 0 {
		t.Errorf("%d memories saved from a temporary chat", n)
	}
	if code, _, _ := e.run(t, "chat", "--temporary", "--chat", "x", "hi"); code != exitUsage {
		t.Errorf("--temporary with --chat: exit %d, want %d", code, exitUsage)
	}
}
