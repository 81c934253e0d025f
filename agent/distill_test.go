package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"engram/memory"
)

func TestParseDistilled(t *testing.T) {
	tea := candidate{Kind: memory.KindPreference, Text: "The user drinks green tea.", Scope: ScopeGlobal}
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
			[]candidate{{Kind: memory.KindFact, Text: "The user lives in Oslo.", Scope: ScopeGlobal}}, false},
		{"unknown kind is a fact", `[{"kind":"trivia","text":"The user lives in Oslo."}]`,
			[]candidate{{Kind: memory.KindFact, Text: "The user lives in Oslo.", Scope: ScopeGlobal}}, false},
		{"project scope", `[{"kind":"fact","text":"The repo uses Go 1.26.","scope":"Project"}]`,
			[]candidate{{Kind: memory.KindFact, Text: "The repo uses Go 1.26.", Scope: ScopeProject}}, false},
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

func TestParseDistilledLimits(t *testing.T) {
	var items []map[string]string
	for i := 0; i < 20; i++ {
		items = append(items, map[string]string{"kind": "fact", "text": strings.Repeat("x", i+1)})
	}
	items = append(items, map[string]string{"kind": "fact", "text": strings.Repeat("long ", 200)})
	b, _ := json.Marshal(items)
	got, err := parseDistilled(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != distillMaxItems {
		t.Errorf("%d candidates, want at most %d", len(got), distillMaxItems)
	}
}

// FuzzParseDistilled checks that any answer parses without panic into valid
// candidates, and that a marshalled list survives prose around it.
func FuzzParseDistilled(f *testing.F) {
	for _, s := range []string{`[]`, `[{"kind":"fact","text":"a"}]`, "```json\n[\"x\"]\n```", `{"memories":[{"text":"y"}]}`,
		`{"a":{"b":[{"c":[]}]}}`, `[[[[["deep"]]]]]`, "<think>x</think>[]", `{"kind":"pref","text":"t","scope":"project"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseDistilled(s)
		if err != nil {
			return
		}
		if len(got) > distillMaxItems {
			t.Fatalf("%d candidates", len(got))
		}
		for _, c := range got {
			if c.Kind.Strength() == 0 || strings.TrimSpace(c.Text) == "" || !utf8.ValidString(c.Text) ||
				utf8.RuneCountInString(c.Text) > distillMaxText || (c.Scope != ScopeGlobal && c.Scope != ScopeProject) {
				t.Fatalf("invalid candidate %+v from %q", c, s)
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
		out = append(out, map[string]string{"kind": string(c.Kind), "text": c.Text, "scope": string(c.Scope)})
	}
	return out
}

func TestWorthDistilling(t *testing.T) {
	long := strings.Repeat("a long and useful answer ", 20)
	tests := []struct {
		user, answer string
		tools        []ToolRecord
		want         bool
	}{
		{"thanks!", long, nil, false},
		{"Hello", "Hi! How can I help?", nil, false},
		{"ok", "ok", nil, false},
		{"yes please", "Done.", nil, false},
		{"I prefer tabs over spaces in all my Go code", "Noted.", nil, true},
		{"fix it", long, nil, true},
		{"go", "", []ToolRecord{{Name: "memory_search"}}, true},
	}
	for _, tt := range tests {
		if got := worthDistilling(tt.user, tt.answer, tt.tools); got != tt.want {
			t.Errorf("worthDistilling(%q) = %v, want %v", tt.user, got, tt.want)
		}
	}
}

func TestTurnExcerpt(t *testing.T) {
	short := turnExcerpt("I like tea", []ToolRecord{{Name: "memory_search", Args: `{"query":"tea"}`,
		Result: strings.Repeat("r", 2000)}}, "Tea it is.")
	if !strings.Contains(short, "User: I like tea") || !strings.Contains(short, "Assistant: Tea it is.") ||
		strings.Count(short, "r") > toolResultMax+10 || !strings.Contains(short, "[…]") {
		t.Errorf("short excerpt:\n%s", short)
	}
	user := "HEAD-MARK " + strings.Repeat("ü", 5000)
	answer := strings.Repeat("long answer ", 1000) + "TAIL-MARK"
	ex := turnExcerpt(user, nil, answer)
	if len(ex) > excerptMax || !strings.Contains(ex, "HEAD-MARK") || !strings.HasSuffix(ex, "TAIL-MARK") ||
		!strings.Contains(ex, "left out") || !utf8.ValidString(ex) {
		t.Errorf("long excerpt (%d bytes) lacks head, tail or marker, or is invalid", len(ex))
	}
}

func TestCutMiddle(t *testing.T) {
	tests := []struct {
		s           string
		limit, head int
		want        string
	}{
		{"short", 10, 3, "short"},
		{"0123456789abcdef", 10, 3, "012..bcdef"},
		{"ééééé", 7, 3, "é..é"},       // neither end splits a character
		{"0123456789", 2, 3, "012.."}, // head and gap exceed the limit: no tail
	}
	for _, tt := range tests {
		if got := cutMiddle(tt.s, tt.limit, tt.head, ".."); got != tt.want {
			t.Errorf("cutMiddle(%q, %d, %d) = %q, want %q", tt.s, tt.limit, tt.head, got, tt.want)
		}
	}
}
