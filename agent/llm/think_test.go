package llm_test

import (
	"testing"

	"engram/agent/llm"
)

// split runs a ThinkSplitter over pieces and returns the reasoning and text.
func split(pieces ...string) (string, string) {
	var s llm.ThinkSplitter
	var r, t string
	for _, p := range pieces {
		pr, pt := s.Write(p)
		r, t = r+pr, t+pt
	}
	pr, pt := s.Flush()
	return r + pr, t + pt
}

func TestThinkSplitter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []string
		reason string
		text   string
	}{
		{"plain", []string{"Hello ", "world"}, "", "Hello world"},
		{"think", []string{"<think>plan</think>\n\nAnswer"}, "plan", "Answer"},
		{"thinking", []string{"<thinking>a\nb</thinking>Answer"}, "a\nb", "Answer"},
		{"reasoning", []string{"<reasoning>r</reasoning> A"}, "r", "A"},
		{"leading space", []string{"\n  <think>r</think>A"}, "r", "A"},
		{"split opener", []string{"<th", "in", "k>r", "</think>A"}, "r", "A"},
		{"split closer", []string{"<think>abc</", "thi", "nk>", "A"}, "abc", "A"},
		{"closer one byte at a time", []string{"<think>x", "<", "/", "t", "h", "i", "n", "k", ">", "\n", "A"}, "x", "A"},
		{"lookalike in reasoning", []string{"<think>a </b> c</think>A"}, "a </b> c", "A"},
		{"unclosed", []string{"<think>still thinking"}, "still thinking", ""},
		{"not at start", []string{"Use <think> tags"}, "", "Use <think> tags"},
		{"looks like tag start", []string{"<th"}, "", "<th"},
		{"other tag", []string{"<b>bold</b>"}, "", "<b>bold</b>"},
		{"mismatched closer", []string{"<think>a</thinking>b</think>c"}, "a</thinking>b", "c"},
		{"second think is text", []string{"<think>a</think>b<think>c</think>"}, "a", "b<think>c</think>"},
		{"white space only", []string{"  \n"}, "", "  \n"},
		{"empty", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, txt := split(tc.pieces...)
			if r != tc.reason || txt != tc.text {
				t.Errorf("split(%q) = %q, %q; want %q, %q", tc.pieces, r, txt, tc.reason, tc.text)
			}
		})
	}
}

// FuzzThinkSplitter checks that the result does not depend on how the
// content is cut into pieces, and that nothing but the tags and white
// space around them is lost.
func FuzzThinkSplitter(f *testing.F) {
	f.Add("<think>a</think>b", 3)
	f.Add(" <thinking>x</thinking>\n y", 1)
	f.Add("<reasoning>", 5)
	f.Add("plain text", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n <= 0 {
			n = 1
		}
		wantR, wantT := split(s)
		var pieces []string
		for i := 0; i < len(s); i += n {
			pieces = append(pieces, s[i:min(i+n, len(s))])
		}
		r, txt := split(pieces...)
		if r != wantR || txt != wantT {
			t.Fatalf("pieces of %d: %q, %q; whole: %q, %q", n, r, txt, wantR, wantT)
		}
		if len(r)+len(txt) > len(s) {
			t.Fatalf("output longer than input: %q, %q from %q", r, txt, s)
		}
	})
}
