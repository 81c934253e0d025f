package openai

import (
	"strings"
	"testing"
	"time"

	"engram/agent/llm"
)

func TestToolAccumulator(t *testing.T) {
	idx := func(i int) *int { return &i }
	type call struct {
		index          *int
		id, name, args string
	}
	run := func(calls ...call) []llm.ToolCall {
		var a toolAccumulator
		for _, c := range calls {
			var tc wireToolCall
			tc.Index, tc.ID, tc.Function.Name = c.index, c.id, c.name
			a.add(tc, c.args)
		}
		return a.calls()
	}
	t.Run("indexed and interleaved", func(t *testing.T) {
		got := run(
			call{idx(0), "c0", "memory_write", ""}, call{idx(1), "c1", "memory_search", ""},
			call{idx(0), "", "", `{"kind":`}, call{idx(1), "", "", `{"query":`},
			call{idx(0), "", "", `"fact"}`}, call{idx(1), "", "", `"x"}`},
		)
		if len(got) != 2 || got[0] != (llm.ToolCall{ID: "c0", Name: "memory_write", Args: `{"kind":"fact"}`}) ||
			got[1] != (llm.ToolCall{ID: "c1", Name: "memory_search", Args: `{"query":"x"}`}) {
			t.Errorf("calls = %+v", got)
		}
	})
	t.Run("no index, whole calls", func(t *testing.T) {
		got := run(call{nil, "a", "memory_forget", `{"id":"1"}`}, call{nil, "b", "memory_forget", `{"id":"2"}`})
		if len(got) != 2 || got[1].Args != `{"id":"2"}` {
			t.Errorf("calls = %+v", got)
		}
	})
	t.Run("no index and no ID, whole calls", func(t *testing.T) {
		got := run(call{nil, "", "memory_forget", `{"id":"1"}`}, call{nil, "", "memory_forget", `{"id":"2"}`})
		if len(got) != 2 || got[0].Args != `{"id":"1"}` || got[1].Args != `{"id":"2"}` || got[0].ID == got[1].ID {
			t.Errorf("calls = %+v", got)
		}
	})
	t.Run("whole calls, all index 0", func(t *testing.T) {
		got := run(call{idx(0), "a", "memory_write", `{"kind":"fact","text":"one"}`},
			call{idx(0), "b", "memory_write", `{"kind":"fact","text":"two"}`})
		if len(got) != 2 || got[0].Args != `{"kind":"fact","text":"one"}` || got[1].ID != "b" ||
			got[1].Args != `{"kind":"fact","text":"two"}` {
			t.Errorf("calls = %+v", got)
		}
	})
	t.Run("no ID", func(t *testing.T) {
		got := run(call{idx(0), "", "memory_search", `{"query":"q"}`})
		if len(got) != 1 || !strings.HasPrefix(got[0].ID, "call_") || len(got[0].ID) < 10 {
			t.Errorf("calls = %+v", got)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"3":                             3 * time.Second,
		" 120 ":                         2 * time.Minute,
		"0.5":                           500 * time.Millisecond,
		"Tue, 01 Dec 2026 08:00:07 GMT": 7 * time.Second,
		"Tue, 01 Dec 2026 07:59:00 GMT": 0, // past
		"":                              0,
		"-1":                            0,
		"soon":                          0,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestWatchSeesDone(t *testing.T) {
	for _, tc := range []struct {
		pieces []string
		done   bool
	}{
		{[]string{"data: {}\n\n", "data: [DONE]\n\n"}, true},
		{[]string{"data: {}\n\ndata: [DO", "NE]\n\n"}, true},
		{[]string{"data:[DONE]"}, true}, // no newline before EOF
		{[]string{"data: {}\n\n"}, false},
		{[]string{`data: {"content":"data: [DONE]"}` + "\n"}, false},
		{[]string{"data: " + strings.Repeat("x", 40) + "[DONE]\n"}, false},
	} {
		w := &watch{}
		for _, p := range tc.pieces {
			w.got([]byte(p))
		}
		w.endLine() // EOF
		if w.sawDone() != tc.done {
			t.Errorf("%q: done = %v", tc.pieces, w.sawDone())
		}
	}
}

// FuzzDecoder feeds arbitrary chunks to the stream decoder: it never
// panics, the deltas add up to the reply, and the size limit holds.
func FuzzDecoder(f *testing.F) {
	f.Add(`{"choices":[{"index":0,"delta":{"content":"<think>a</think>b"}}]}`,
		`{"choices":[{"delta":{"reasoning":"r","tool_calls":[{"function":{"name":"n","arguments":{"a":1}}}]},"finish_reason":"stop"}]}`, 8)
	f.Add(`{"choices":[{"delta":{"reasoning_content":"x"}}],"usage":{"prompt_tokens":3}}`, `not json`, 0)
	f.Add(`{"choices":[{"delta":{"content":null,"tool_calls":[{"index":0,"id":"c","function":{"arguments":"{"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}}]}`, 3)
	f.Fuzz(func(t *testing.T, a, b string, max int) {
		if max < 0 {
			max = -max
		}
		var text, reasoning strings.Builder
		d := &decoder{max: max % 64, onDelta: func(dl llm.Delta) {
			text.WriteString(dl.Text)
			reasoning.WriteString(dl.Reasoning)
		}}
		_ = d.chunk([]byte(a))
		_ = d.chunk([]byte(b))
		r := d.finish()
		if r.Text != text.String() || r.Reasoning != reasoning.String() {
			t.Fatalf("reply %q/%q, deltas %q/%q", r.Text, r.Reasoning, text.String(), reasoning.String())
		}
		if d.max > 0 && len(r.Text)+len(r.Reasoning) > d.max {
			t.Fatalf("%d bytes over a limit of %d", len(r.Text)+len(r.Reasoning), d.max)
		}
	})
}
