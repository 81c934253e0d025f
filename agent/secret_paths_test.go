package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/agent/memtools"
	"engram/memory"
)

// secretCategory is one way of writing a secret, from the memory
// package's shared cases (memory/testdata/secrets.json).
type secretCategory struct {
	Name  string   `json:"name"`
	Texts []string `json:"texts"`
}

func loadSecretCategories(t *testing.T) []secretCategory {
	t.Helper()
	b, err := os.ReadFile("../memory/testdata/secrets.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Categories []secretCategory `json:"categories"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Categories
}

// allTexts are every category's texts.
func allTexts(cats []secretCategory) []string {
	var out []string
	for _, c := range cats {
		out = append(out, c.Texts...)
	}
	return out
}

// opsJSON is a distillation's answer: one operation per text.
func opsJSON(t *testing.T, op, id string, texts []string) string {
	t.Helper()
	var ops []map[string]string
	for _, s := range texts {
		o := map[string]string{"op": op, "kind": "fact", "text": s}
		if id != "" {
			o["id"] = id
		}
		ops = append(ops, o)
	}
	b, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// toolCalls calls the tool once per text, with the arguments args makes.
func toolCalls(name string, texts []string, args func(string) map[string]string) []agenttest.ToolCall {
	var calls []agenttest.ToolCall
	for i, s := range texts {
		b, _ := json.Marshal(args(s))
		calls = append(calls, agenttest.ToolCall{ID: fmt.Sprintf("c%d", i), Name: name, Args: string(b)})
	}
	return calls
}

// secretPaths are the ways a memory enters a store from the model or the
// pipeline, each run with every text; the CLI's are engramctl's tests
// (cmd/engramctl/secret_test.go).
var secretPaths = []struct {
	name string
	run  func(t *testing.T, h *harness, texts []string)
}{
	{"memory_write (chat)", func(t *testing.T, h *harness, texts []string) {
		h.srv.Push(agenttest.Reply{ToolCalls: toolCalls("memory_write", texts, func(s string) map[string]string {
			return map[string]string{"kind": "fact", "text": s}
		})}, agenttest.Reply{Text: "Not saved."})
		if log := h.turn(h.newChat(), "remember these"); log.done.Err != nil {
			t.Fatal(log.done.Err)
		}
	}},
	{"memory_update (chat)", func(t *testing.T, h *harness, texts []string) {
		e := addMemory(t, h.store(agent.ScopeGlobal, ""), memory.Entry{Kind: memory.KindFact,
			Text: "The user's router sits in the hallway cupboard.", Source: memory.SourceTool})
		h.srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "s", Name: "memory_search", Args: `{"query":"router hallway"}`}}},
			agenttest.Reply{ToolCalls: toolCalls("memory_update", texts, func(s string) map[string]string {
				return map[string]string{"id": e.ID, "text": s}
			})}, agenttest.Reply{Text: "Not saved."})
		if log := h.turn(h.newChat(), "update the router memory"); log.done.Err != nil {
			t.Fatal(log.done.Err)
		}
	}},
	{"distillation add", func(t *testing.T, h *harness, texts []string) {
		h.distillTurn(h.newChat(), "here are my details", "Noted.", opsJSON(t, "add", "", texts))
	}},
	{"distillation update", func(t *testing.T, h *harness, texts []string) {
		e := addMemory(t, h.store(agent.ScopeGlobal, ""), memory.Entry{Kind: memory.KindFact,
			Text: "The user's router sits in the hallway cupboard.", Source: memory.SourceAuto})
		h.distillTurn(h.newChat(), "the router in the hallway cupboard got a new setup", "Noted.",
			opsJSON(t, "update", e.ID, texts))
	}},
	{"learn from past chats", func(t *testing.T, h *harness, texts []string) {
		h.srv.Push(agenttest.Reply{Text: "Noted."})
		h.turn(h.newChat(), "here are my details")
		ops := opsJSON(t, "add", "", texts)
		h.srv.Respond = func(agenttest.Request) agenttest.Reply { return agenttest.Reply{Text: ops} }
		if _, err := h.a.Learn(context.Background(), agent.LearnOptions{}); err != nil {
			t.Fatal(err)
		}
	}},
	{"MCP memory_write", func(t *testing.T, h *harness, texts []string) {
		s, err := h.a.ToolSession("", shownAll{})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			b, _ := json.Marshal(map[string]string{"kind": "fact", "text": text})
			_, _, _ = s.Run(memtools.Write, string(b)) // a refusal is the model's answer; the store is counted
		}
	}},
	{"suggestion kept, edited", func(t *testing.T, h *harness, texts []string) {
		h.distillTurn(h.newChat(), "I like green tea", "Noted.",
			`[{"op":"add","kind":"preference","text":"The user likes green tea."}]`)
		sugg := h.a.Suggestions()
		if len(sugg) != 1 {
			t.Fatalf("suggestions %+v", sugg)
		}
		for _, text := range texts { // a refused text leaves the suggestion held for the next
			_, _ = h.a.KeepSuggestion(sugg[0].ID, text)
		}
	}},
}

// shownAll is a memtools.Shown that has shown nothing and keeps nothing.
type shownAll struct{}

func (shownAll) Add(...string)   {}
func (shownAll) Has(string) bool { return false }

// TestSecretsStoredOnNoPath runs every way of writing a secret through
// every path of the model and the pipeline and counts what any store, or
// the held suggestions, kept: nothing. go test -v prints the table.
func TestSecretsStoredOnNoPath(t *testing.T) {
	cats := loadSecretCategories(t)
	texts := allTexts(cats)
	stored := map[string]map[string]int{} // path → category → stored
	run := func(path int, texts []string) map[string]bool {
		h := newHarness(t, func(c *agent.Config) {
			c.Distill = true
			if strings.HasPrefix(secretPaths[path].name, "suggestion") {
				c.Capture = agent.CaptureAsk
			}
		}, nil)
		secretPaths[path].run(t, h, texts)
		h.a.Wait()
		kept := map[string]bool{}
		for _, e := range h.store(agent.ScopeGlobal, "").All() {
			kept[e.Text] = true
		}
		for _, s := range h.a.Suggestions() {
			kept[s.Text] = true
		}
		return kept
	}
	const ordinary = "The user's favourite number is 4821."
	for i, p := range secretPaths {
		// The path stores what is not a secret, so a count of 0 below is
		// the check's doing.
		if kept := run(i, []string{ordinary}); !kept[ordinary] {
			t.Errorf("%s did not store the ordinary memory %q", p.name, ordinary)
		}
		kept := run(i, texts)
		stored[p.name] = map[string]int{}
		for _, c := range cats {
			for _, s := range c.Texts {
				if kept[s] {
					stored[p.name][c.Name]++
					t.Errorf("%s kept the secret %q", p.name, s)
				}
			}
		}
	}
	for _, c := range cats {
		var row []string
		for _, p := range secretPaths {
			row = append(row, fmt.Sprintf("%d/%d", stored[p.name][c.Name], len(c.Texts)))
		}
		t.Logf("%-32s %s", c.Name, strings.Join(row, "  "))
	}
	var names []string
	for _, p := range secretPaths {
		names = append(names, p.name)
	}
	t.Logf("columns (stored/attempts): %s", strings.Join(names, " | "))
}
