package agent_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// TestForgetLeavesNoCopyInChats: the memory_search results, updates and
// tool arguments that a chat recorded hold a memory's text; once the memory
// is forgotten (by the model, by an accepted proposal, with its older
// versions) no chat file holds it, in chats this agent has and in chats
// another agent wrote, and that other agent's older copies do not bring it
// back when it writes.
func TestForgetLeavesNoCopyInChats(t *testing.T) {
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	add := func(text string, src memory.Source) memory.Entry {
		t.Helper()
		e, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: text, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	pool := add("The user swims at the Nordbad pool on Tuesdays.", memory.SourceTool)
	sister := add("The user's sister Quirinella lives in Graz.", memory.SourceUser)
	tea := add(`The user's favourite tea is "Zwetschgenrooibos" <loose>.`, memory.SourceTool)
	secrets := []string{"Nordbad", "Quirinella", "Zwetschgenrooibos", "Jasminetta"}

	// Chat one shows all three and updates the tea (its old text stays in
	// the first search result, the new one in the update).
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "s1", Name: "memory_search", Args: `{"query":"pool"}`},
			{ID: "s2", Name: "memory_search", Args: `{"query":"sister"}`},
			{ID: "s3", Name: "memory_search", Args: `{"query":"tea"}`},
		}},
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "u1", Name: "memory_update", Args: `{"id":"` + tea.ID + `","text":"The user's favourite tea is Jasminetta."}`},
		}},
		agenttest.Reply{Text: "Noted."},
	)
	one := h.newChat()
	if log := h.turn(one, "what do you know about me?"); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	newTea := st.History(tea.ID)[1]
	if !strings.Contains(newTea.Text, "Jasminetta") {
		t.Fatalf("the update made %+v", newTea)
	}

	// A second agent on the same files holds chat one as it is now, and
	// writes chat two, which the first agent has never loaded.
	b, err := agent.New(agent.Options{Config: h.a.Config(), Paths: h.paths, HTTPClient: h.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "s4", Name: "memory_search", Args: `{"query":"pool"}`}}},
		agenttest.Reply{Text: "You swim."},
	)
	two, err := b.NewChat()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Send(t.Context(), two.ID, "where do I swim?"); err != nil {
		t.Fatal(err)
	}
	for e := range b.Events() {
		if d, ok := e.(agent.TurnDone); ok && d.ChatID == two.ID {
			if d.Err != nil {
				t.Fatal(d.Err)
			}
			break
		}
	}
	b.Wait()
	if n := filesHolding(t, h.paths.ChatsDir(), secrets); n == 0 {
		t.Fatal("the chats hold none of the memories' texts before the forget: the test shows nothing")
	}

	// The model forgets its own memories; the person's is proposed, and
	// accepted.
	h.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{
			{ID: "f1", Name: "memory_forget", Args: `{"id":"` + pool.ID + `"}`},
			{ID: "f2", Name: "memory_forget", Args: `{"id":"` + newTea.ID + `"}`},
			{ID: "f3", Name: "memory_forget", Args: `{"id":"` + sister.ID + `"}`},
		}},
		agenttest.Reply{Text: "Forgotten."},
	)
	if log := h.turn(one, "forget all of that"); log.done.Err != nil {
		t.Fatal(log.done.Err)
	}
	props := h.a.Proposals()
	if len(props) != 1 || props[0].Entry.ID != sister.ID {
		t.Fatalf("proposals = %+v", props)
	}
	if err := h.a.AcceptForget(props[0]); err != nil {
		t.Fatal(err)
	}
	h.a.Wait()
	if n := filesHolding(t, h.paths.ChatsDir(), secrets); n > 0 {
		t.Errorf("after the forgets %d chat files hold a forgotten memory's text", n)
	}

	// The second agent still holds chat one as it was; its writes bring
	// nothing back, and what it holds is scrubbed too.
	for _, id := range []string{one, two.ID} {
		if err := b.RenameChat(id, "Renamed by B"); err != nil {
			t.Fatal(err)
		}
	}
	if n := filesHolding(t, h.paths.ChatsDir(), secrets); n > 0 {
		t.Errorf("after the second agent wrote, %d chat files hold a forgotten memory's text", n)
	}
	for _, id := range []string{one, two.ID} {
		c, err := b.Chat(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Messages {
			for _, r := range m.Tools {
				for _, s := range secrets {
					if strings.Contains(r.Result+r.Args, s) {
						t.Errorf("the second agent's chat %s still has %q in %+v", id, s, r)
					}
				}
			}
		}
	}
	// The placeholder says what was there.
	c, _ := h.a.Chat(one)
	if got := c.Messages[1].Tools[0].Result; !strings.Contains(got, "[forgotten memory "+pool.ID+"]") {
		t.Errorf("the search result became %q", got)
	}
}

// filesHolding counts the files under dir that contain any of texts.
func filesHolding(t *testing.T, dir string, texts []string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range texts {
			if strings.Contains(string(b), s) {
				t.Logf("%s holds %q", filepath.Base(path), s)
				n++
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
