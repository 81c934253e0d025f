package chat

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMatchAll checks that a match's offset is in the text,
// on a rune boundary, and that its snippet is valid text.
func FuzzMatchAll(f *testing.F) {
	f.Add("How do I deploy the frontend?", "deploy")
	f.Add("部署脚本怎么改？部署", "脚本 部署")
	f.Add("İstanbul ǅ straße", "straße")
	f.Add(strings.Repeat("long text ", 40)+"needle"+strings.Repeat(" tail", 40), "NEEDLE")
	f.Fuzz(func(t *testing.T, text, query string) {
		if !utf8.ValidString(text) || !utf8.ValidString(query) {
			return
		}
		words := strings.Fields(strings.ToLower(query))
		if len(words) == 0 {
			return
		}
		at, ok := matchAll(text, words)
		if !ok {
			return
		}
		if at < 0 || at > len(text) || at < len(text) && !utf8.RuneStart(text[at]) {
			t.Fatalf("offset %d in %q", at, text)
		}
		if s := snippet(text, at); !utf8.ValidString(s) {
			t.Fatalf("snippet %q is not valid text", s)
		}
	})
}
