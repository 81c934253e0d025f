package prompts_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"engram/agent/prompts"
)

// TestPromptsAreCleanText: every prompt has text, and none carries the
// file's final newline, a carriage return or edge spaces into what the
// model is sent.
func TestPromptsAreCleanText(t *testing.T) {
	for name, p := range map[string]string{"Base": prompts.Base, "Tools": prompts.Tools,
		"Continue": prompts.Continue, "Compact": prompts.Compact, "Distill": prompts.Distill, "Title": prompts.Title} {
		switch {
		case strings.TrimSpace(p) == "":
			t.Errorf("%s is empty", name)
		case strings.TrimSpace(p) != p:
			t.Errorf("%s starts or ends with white space: %q…%q", name, p[:min(len(p), 20)], p[max(0, len(p)-20):])
		case strings.Contains(p, "\r"):
			t.Errorf("%s has a carriage return (a checkout with CRLF line ends?)", name)
		case !utf8.ValidString(p):
			t.Errorf("%s is not valid UTF-8", name)
		}
	}
}
