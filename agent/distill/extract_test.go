package distill

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"engram/agent/chat"
	"engram/memory"
)

func TestParseDistilled(t *testing.T) {
	tea := candidate{Kind: memory.KindPreference, Text: "The user drinks green tea.", Scope: chat.ScopeGlobal}
	tests := []struct {
		name string
		in   string
		want []candidate
		err  bool
	}{
		{"bare array", `[{"kind":"preference","text":"The user drinks green tea."}]`, []candidate{tea}, false},
		{"empty array", `[]`, []candidate{}, false},
		{"prose around", "Sure! Here you go:\n[{\"kind\":\"preference\",\"text\":\"The user drinks green tea.\"}]\nHope it helps.",
			[]candidate{tea}, false},
		{"fenced", "```json\n[{\"kind\": \"pref\", \"text\": \"The user drinks green tea.\"}]\n```", []candidate{tea}, false},
		{"fence without language", "```\n[{\"type\":\"preference\",\"memory\":\"The user drinks green tea.\"}]\n```",
			[]candidate{tea}, false},
		{"wrapping object", `{"memories":[{"kind":"preference","text":"The user drinks green tea."}]}`, []candidate{tea}, false},
		{"other wrapping key", `{"output":[{"kind":"preference","text":"The user drinks green tea."}]}`, []candidate{tea}, false},
		{"single object", `{"kind":"preference","text":"The user drinks green tea."}`, []candidate{tea}, false},
		{"strings are facts", `["The user lives in Oslo."]`,
			[]candidate{{Kind: memory.KindFact, Text: "The user lives in Oslo.", Scope: chat.ScopeGlobal}}, false},
		{"unknown kind is a fact", `[{"kind":"trivia","text":"The user lives in Oslo."}]`,
			[]candidate{{Kind: memory.KindFact, Text: "The user lives in Oslo.", Scope: chat.ScopeGlobal}}, false},
		{"project scope", `[{"kind":"fact","text":"The repo uses Go 1.26.","scope":"Project"}]`,
			[]candidate{{Kind: memory.KindFact, Text: "The repo uses Go 1.26.", Scope: chat.ScopeProject}}, false},
		{"think block", "<think>[{\"kind\":\"fact\",\"text\":\"wrong\"}]</think>\n[{\"kind\":\"preference\",\"text\":\"The user drinks green tea.\"}]",
			[]candidate{tea}, false},
		{"brackets in prose first", "Notes [draft]: [{\"kind\":\"preference\",\"text\":\"The user drinks green tea.\"}]",
			[]candidate{tea}, false},
		{"duplicates and blanks dropped", `[{"kind":"preference","text":"The user drinks  green tea."},` +
			`{"kind":"fact","text":"the user drinks green tea."},{"kind":"fact","text":"   "},{"kind":"fact"}]`,
			[]candidate{tea}, false},
		{"no JSON", "Nothing worth remembering here.", nil, true},
		{"broken JSON", `[{"kind":"fact","text":"x"`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDistilled(tt.in)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if tt.err {
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("[%d] = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseDistilledOps(t *testing.T) {
	in := "<think>the user corrected a fact</think>\nHere are the operations:\n```json\n[" +
		`{"op":"add","kind":"preference","text":"The user prefers spaces.","scope":"global"},` +
		`{"op":"UPDATE","id":"m3","text":"The user lives in Bergen."},` +
		`{"op":"forget","id":"m7","reason":"the user said it is no longer true"},` +
		`{"op":"none"},{"op":"explode","id":"m9"},{"op":"forget"},{"op":"update","id":"m4"},` +
		`{"op":"forget","id":"m3"},"The user has a cat.",{"text":"The user cycles."},` +
		`{"event":"DELETE","id":12}` + "]\n```"
	got, err := parseDistilled(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []candidate{
		{Op: opAdd, Kind: memory.KindPreference, Text: "The user prefers spaces.", Scope: chat.ScopeGlobal},
		{Op: opUpdate, ID: "m3", Text: "The user lives in Bergen.", Scope: chat.ScopeGlobal},
		{Op: opForget, ID: "m7", Scope: chat.ScopeGlobal, Reason: "the user said it is no longer true"},
		{Op: opAdd, Kind: memory.KindFact, Text: "The user has a cat.", Scope: chat.ScopeGlobal},
		{Op: opAdd, Kind: memory.KindFact, Text: "The user cycles.", Scope: chat.ScopeGlobal},
		{Op: opForget, ID: "12", Scope: chat.ScopeGlobal},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got, err := parseDistilled(`[{"op":"none"}]`); err != nil || len(got) != 0 {
		t.Errorf("only none: %+v, %v", got, err)
	}
}

func TestParseDistilledLimits(t *testing.T) {
	parse := func(t *testing.T, texts ...string) []string {
		t.Helper()
		var items []map[string]string
		for _, s := range texts {
			items = append(items, map[string]string{"kind": "fact", "text": s})
		}
		b, err := json.Marshal(items)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseDistilled(string(b))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range got {
			out = append(out, c.Text)
		}
		return out
	}
	t.Run("at most 8, the first ones", func(t *testing.T) {
		var texts []string
		for i := 0; i < 20; i++ {
			texts = append(texts, fmt.Sprintf("Fact number %d.", i))
		}
		if got := parse(t, texts...); !slices.Equal(got, texts[:distillMaxItems]) {
			t.Errorf("kept %q, want the first %d", got, distillMaxItems)
		}
	})
	t.Run("overlong dropped at the store's limit", func(t *testing.T) {
		// Runes, not bytes: "é" is two bytes. Fewer than 8 texts, so the
		// cap cannot be what drops one.
		atLimit := strings.Repeat("é", memory.MaxAutoRunes)
		over := strings.Repeat("ü", memory.MaxAutoRunes+1)
		spaced := strings.Repeat("a   ", memory.MaxAutoRunes/2) // over the limit until spaces collapse
		got := parse(t, over, "short one", atLimit, spaced)
		want := []string{"short one", atLimit, strings.TrimSpace(strings.Repeat("a ", memory.MaxAutoRunes/2))}
		if !slices.Equal(got, want) {
			t.Errorf("kept %d texts of %d runes, want %d of %d", len(got), runeCounts(got), len(want), runeCounts(want))
		}
		for _, s := range got {
			if _, err := memory.CleanText(s, memory.SourceAuto); err != nil {
				t.Errorf("the store refuses a kept text: %v", err)
			}
		}
	})
	t.Run("overlong takes no place under the cap", func(t *testing.T) {
		texts := []string{strings.Repeat("x", memory.MaxAutoRunes+1)}
		for i := 0; i < distillMaxItems; i++ {
			texts = append(texts, fmt.Sprintf("Fact number %d.", i))
		}
		if got := parse(t, texts...); !slices.Equal(got, texts[1:]) {
			t.Errorf("kept %q, want the %d short ones", got, distillMaxItems)
		}
	})
}

func runeCounts(ss []string) []int {
	var n []int
	for _, s := range ss {
		n = append(n, utf8.RuneCountInString(s))
	}
	return n
}

// FuzzParseDistilled checks that any answer parses without panic into
// candidates the store accepts as distilled memories (memory.CleanText with
// SourceAuto: at most memory.MaxAutoRunes runes), and that a marshalled list
// survives prose around it.
func FuzzParseDistilled(f *testing.F) {
	for _, s := range []string{`[]`, `[{"kind":"fact","text":"a"}]`, "```json\n[\"x\"]\n```", `{"memories":[{"text":"y"}]}`,
		`{"a":{"b":[{"c":[]}]}}`, `[[[[["deep"]]]]]`, "<think>x</think>[]", `{"kind":"pref","text":"t","scope":"project"}`,
		`[{"op":"update","id":"m3","text":"new"},{"op":"forget","id":"m7","reason":"stale"},{"op":"none"}]`,
		`{"operations":[{"event":"DELETE","id":7},{"action":"ADD","text":"x"}]}`, `[{"op":"update","text":"no id"}]`} {
		f.Add(s)
	}
	for _, n := range []int{memory.MaxAutoRunes, memory.MaxAutoRunes + 1} { // the limit, and just over
		f.Add(`[{"kind":"fact","text":"` + strings.Repeat("é", n) + `"}]`)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseDistilled(s)
		if err != nil {
			return
		}
		if len(got) > distillMaxItems {
			t.Fatalf("%d candidates", len(got))
		}
		ids := map[string]bool{}
		for _, c := range got {
			switch c.Op {
			case opAdd:
				if c.ID != "" || c.Kind.Strength() == 0 {
					t.Fatalf("invalid add %+v from %q", c, s)
				}
			case opUpdate:
				if c.ID == "" || c.Kind != "" && c.Kind.Strength() == 0 {
					t.Fatalf("invalid update %+v from %q", c, s)
				}
			case opForget:
				if c.ID == "" || c.Text != "" {
					t.Fatalf("invalid forget %+v from %q", c, s)
				}
			default:
				t.Fatalf("op %d (none or unknown) returned from %q", c.Op, s)
			}
			if c.ID != "" && ids[c.ID] {
				t.Fatalf("two operations on %s from %q", c.ID, s)
			}
			ids[c.ID] = c.ID != ""
			if c.Scope != chat.ScopeGlobal && c.Scope != chat.ScopeProject {
				t.Fatalf("invalid scope %+v from %q", c, s)
			}
			if c.Op == opForget {
				continue
			}
			if clean, err := memory.CleanText(c.Text, memory.SourceAuto); err != nil || clean != c.Text {
				t.Fatalf("the store stores candidate %q from %q as %q, %v", c.Text, s, clean, err)
			}
		}
		// The same list inside prose parses to the same list.
		b, _ := json.Marshal(toJSON(got))
		again, err := parseDistilled("Here they are:\n" + string(b) + "\nDone.")
		if err != nil || len(again) != len(got) {
			t.Fatalf("re-parse of %s: %v, %d candidates", b, err, len(again))
		}
	})
}

func toJSON(cs []candidate) []map[string]string {
	out := []map[string]string{}
	for _, c := range cs {
		op := map[opKind]string{opAdd: "add", opUpdate: "update", opForget: "forget"}[c.Op]
		out = append(out, map[string]string{"op": op, "id": c.ID, "kind": string(c.Kind), "text": c.Text,
			"scope": string(c.Scope), "reason": c.Reason})
	}
	return out
}

func TestWorthDistilling(t *testing.T) {
	long := strings.Repeat("a long and useful answer ", 20)
	tests := []struct {
		user, answer string
		tools        []chat.ToolRecord
		want         bool
	}{
		{"thanks!", long, nil, false},
		{"Hello", "Hi! How can I help?", nil, false},
		{"ok", "ok", nil, false},
		{"yes please", "Done.", nil, false},
		{"I prefer tabs over spaces in all my Go code", "Noted.", nil, true},
		{"fix it", long, nil, true},
		{"go", "", []chat.ToolRecord{{Name: "memory_search"}}, true},
	}
	for _, tt := range tests {
		if got := WorthDistilling(tt.user, tt.answer, tt.tools); got != tt.want {
			t.Errorf("WorthDistilling(%q) = %v, want %v", tt.user, got, tt.want)
		}
	}
}

func TestTurnExcerpt(t *testing.T) {
	short := Excerpt("I like tea", []chat.ToolRecord{{Name: "memory_search", Args: `{"query":"tea"}`,
		Result: strings.Repeat("r", 2000)}}, "Tea it is.")
	if !strings.Contains(short, "User: I like tea") || !strings.Contains(short, "Assistant: Tea it is.") ||
		strings.Count(short, "r") > toolResultMax+10 || !strings.Contains(short, "[…]") {
		t.Errorf("short excerpt:\n%s", short)
	}
	user := "HEAD-MARK " + strings.Repeat("ü", 5000)
	answer := strings.Repeat("long answer ", 1000) + "TAIL-MARK"
	ex := Excerpt(user, nil, answer)
	if len(ex) > excerptMax || !strings.Contains(ex, "HEAD-MARK") || !strings.HasSuffix(ex, "TAIL-MARK") ||
		!strings.Contains(ex, "left out") || !utf8.ValidString(ex) {
		t.Errorf("long excerpt (%d bytes) lacks head, tail or marker, or is invalid", len(ex))
	}
}
