package openai

import (
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"engram/agent/llm"
)

func TestToolAccumulator(t *testing.T) {
	idx := func(i int) *int { return &i }
	call := func(i *int, id, name, args string) goopenai.ToolCall {
		return goopenai.ToolCall{Index: i, ID: id, Function: goopenai.FunctionCall{Name: name, Arguments: args}}
	}
	t.Run("indexed and interleaved", func(t *testing.T) {
		var a toolAccumulator
		for _, tc := range []goopenai.ToolCall{
			call(idx(0), "c0", "memory_write", ""), call(idx(1), "c1", "memory_search", ""),
			call(idx(0), "", "", `{"kind":`), call(idx(1), "", "", `{"query":`),
			call(idx(0), "", "", `"fact"}`), call(idx(1), "", "", `"x"}`),
		} {
			a.add(tc)
		}
		got := a.calls()
		if len(got) != 2 || got[0] != (llm.ToolCall{ID: "c0", Name: "memory_write", Args: `{"kind":"fact"}`}) ||
			got[1] != (llm.ToolCall{ID: "c1", Name: "memory_search", Args: `{"query":"x"}`}) {
			t.Errorf("calls = %+v", got)
		}
	})
	t.Run("no index, whole calls", func(t *testing.T) {
		var a toolAccumulator
		a.add(call(nil, "a", "memory_forget", `{"id":"1"}`))
		a.add(call(nil, "b", "memory_forget", `{"id":"2"}`))
		got := a.calls()
		if len(got) != 2 || got[1].Args != `{"id":"2"}` {
			t.Errorf("calls = %+v", got)
		}
	})
	t.Run("whole calls, all index 0", func(t *testing.T) {
		var a toolAccumulator
		a.add(call(idx(0), "a", "memory_write", `{"kind":"fact","text":"one"}`))
		a.add(call(idx(0), "b", "memory_write", `{"kind":"fact","text":"two"}`))
		got := a.calls()
		if len(got) != 2 || got[0].Args != `{"kind":"fact","text":"one"}` || got[1].ID != "b" ||
			got[1].Args != `{"kind":"fact","text":"two"}` {
			t.Errorf("calls = %+v", got)
		}
	})
	t.Run("no ID", func(t *testing.T) {
		var a toolAccumulator
		a.add(call(idx(0), "", "memory_search", `{"query":"q"}`))
		if got := a.calls(); len(got) != 1 || got[0].ID != "call_0" {
			t.Errorf("calls = %+v", got)
		}
	})
}
