package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent/agenttest"
	"engram/memory"
)

// terminalControls are characters a terminal acts on: ESC (starting OSC
// and CSI sequences), BEL (ending OSC), CR, DEL, the C1 CSI and NEL, and
// the bidi override and isolate.
const terminalControls = "\x1b\x07\r\x7f\u009b\u0085\u202e\u2066"

// hostileTexts are memories that would retitle the terminal, clear it,
// move the cursor with a C1 CSI, or read backwards.
var hostileTexts = []string{
	"The user's harbour is Kiel.\x1b]0;pwned\x07",
	"The user's harbour crane\x1b[2J is red.",
	"The user's harbour boat\u009b2J is blue\u0085.",
	"The user's harbour \u202etxet desrever\u202c and \u2066isolate\u2069\x7f\r.",
}

// writeHostileStore writes hostileTexts into the global memory.json by
// hand, as a synced or edited file would bring them.
func (e *chatEnv) writeHostileStore(t *testing.T) {
	t.Helper()
	var es []map[string]any
	for i, text := range hostileTexts {
		es = append(es, map[string]any{"id": "hostile00" + string(rune('a'+i)), "kind": "fact", "text": text,
			"created": "2026-01-02T03:04:05Z"})
	}
	b, err := json.Marshal(map[string]any{"version": 2, "entries": es})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.vars["XDG_CONFIG_HOME"], "engram")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "memory.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMemoryOutputDropsTerminalControls: list, search, export and the
// messages print no character a terminal acts on; --json keeps them, as
// escapes, and --raw prints them as they are.
func TestMemoryOutputDropsTerminalControls(t *testing.T) {
	e := newChatEnv(t)
	e.writeHostileStore(t)
	for _, args := range [][]string{
		{"memory", "list"},
		{"memory", "list", "--all"},
		{"memory", "search", "harbour"},
		{"memory", "export"},
		{"memory", "export", "--jsonl"},
		{"memory", "list", "--json"},
		{"memory", "search", "--json", "harbour"},
		{"memory", "edit", "hostile00a", "--kind", "lesson", "--json"},
	} {
		code, out, errOut := e.run(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, code, errOut)
		}
		if !strings.Contains(out, "harbour") {
			t.Errorf("%v printed no memory:\n%s", args, out)
		}
		if i := strings.IndexAny(out+errOut, terminalControls); i >= 0 {
			t.Errorf("%v printed a terminal control at %d: %q", args, i, out+errOut)
		}
	}

	// JSON output is exact: the controls are escaped, not dropped.
	_, out, _ := e.run(t, "memory", "list", "--json")
	var es []memory.Entry
	if err := json.Unmarshal([]byte(out), &es); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range es {
		got[m.Text] = true
	}
	for _, text := range hostileTexts {
		if !got[text] {
			t.Errorf("--json lost the text %q", text)
		}
	}

	// --raw prints the bytes.
	code, out, _ := e.run(t, "--raw", "memory", "search", "harbour")
	if code != exitOK || !strings.Contains(out, "\x1b]0;pwned\x07") || !strings.Contains(out, "\u009b2J") {
		t.Errorf("--raw: exit %d, stdout %q", code, out)
	}
}

// TestChatOutputDropsTerminalControls: an answer streamed with an escape
// sequence split over two chunks, its reasoning, a tool's output and the
// recalled memories print no character a terminal acts on; --raw keeps
// the answer's.
func TestChatOutputDropsTerminalControls(t *testing.T) {
	e := newChatEnv(t)
	e.writeHostileStore(t)
	answer := agenttest.Reply{Pieces: []string{"Your harbour is Kiel.\x1b", "]0;pwned\x07 The crane\x1b[", "2J is red\u009b", "2J."},
		Reasoning: "The user asks\x1b[2J about\u202e the harbour."}
	e.srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "s", Name: "memory_search", Args: `{"query":"harbour"}`}}},
		answer, agenttest.Reply{Text: "[]"})
	code, out, errOut := e.run(t, "chat", "Where is my harbour?")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if out != "Your harbour is Kiel.]0;pwned The crane[2J is red2J.\n" {
		t.Errorf("stdout = %q", out)
	}
	for _, want := range []string{"recalled", "thinking: The user asks[2J about the harbour.", "→ "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if i := strings.IndexAny(out+errOut, terminalControls); i >= 0 {
		t.Errorf("printed a terminal control at %d: %q", i, out+errOut)
	}

	e.srv.Push(answer, agenttest.Reply{Text: "[]"})
	code, out, errOut = e.run(t, "--raw", "chat", "--no-recall", "Where is my harbour?")
	if code != exitOK || out != "Your harbour is Kiel.\x1b]0;pwned\x07 The crane\x1b[2J is red\u009b2J.\n" {
		t.Errorf("--raw: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

func TestTextWriter(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain text, newline and tab kept", []string{"a\tb\nc — 中文 é"}, "a\tb\nc — 中文 é"},
		{"OSC title", []string{"x\x1b]0;title\x07y"}, "x]0;titley"},
		{"CSI split over writes", []string{"x\x1b", "[2J", "y"}, "x[2Jy"},
		{"C1 CSI split inside its bytes", []string{"x\xc2", "\x9b2Jy"}, "x2Jy"},
		{"a letter split inside its bytes", []string{"caf\xc3", "\xa9 \xe4\xb8", "\xad"}, "café 中"},
		{"DEL, CR, NUL", []string{"a\x7fb\rc\x00d"}, "abcd"},
		{"bidi override and isolates", []string{"a\u202eb\u202cc\u2066d\u2069e\u202af"}, "abcdef"},
		{"a byte that is not UTF-8", []string{"a\x9bb\xffc"}, "a\ufffdb\ufffdc"},
		{"a lone start byte before ASCII", []string{"a\xe4", "b"}, "a\ufffdb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			w := &textWriter{w: &b}
			for _, s := range c.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if b.String() != c.want {
				t.Errorf("wrote %q, want %q", b.String(), c.want)
			}
		})
	}
}

func TestEscapeJSONIsExactAndSafe(t *testing.T) {
	text := "DEL\x7f C1\u0085\u009b bidi\u202e\u2069 ESC\x1b BEL\x07 中文 \u2028"
	b, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		t.Fatal(err)
	}
	out := escapeJSON(b)
	if i := strings.IndexAny(string(out), terminalControls); i >= 0 {
		t.Errorf("escaped JSON keeps a terminal control at %d: %q", i, out)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["text"] != text {
		t.Errorf("escaped JSON reads back as %q, %v; want %q", back["text"], err, text)
	}
}

// FuzzTextWriter: however a text is cut into writes, the writer prints no
// character a terminal acts on, and prints what one whole write prints.
func FuzzTextWriter(f *testing.F) {
	f.Add("x\x1b]0;title\x07y\u009b2J\u202e中", 3)
	f.Add("caf\xc3\xa9\xc2\x9b", 4)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var whole, parts strings.Builder
		(&textWriter{w: &whole}).Write([]byte(s))
		w := &textWriter{w: &parts}
		cut = int(uint(cut) % uint(len(s)+1))
		w.Write([]byte(s[:cut]))
		w.Write([]byte(s[cut:]))
		if whole.String() != parts.String() {
			t.Errorf("cut at %d: %q, whole: %q", cut, parts.String(), whole.String())
		}
		for _, r := range whole.String() {
			if unsafeRune(r) {
				t.Fatalf("printed %U from %q", r, s)
			}
		}
	})
}
