package distill

import (
	"engram/memory"
	"strings"
	"testing"
)

// Distilled candidates of 401 to 500 characters used to pass the parser
// (500) and then be refused by the store (400): the parser now uses the
// store's limit, and every length the parser keeps the store accepts.
func TestDistilledLengthsAgreeWithStore(t *testing.T) {
	st := memory.NewInMemory(memory.Options{})
	for n := memory.MaxAutoRunes - 2; n <= 500; n++ {
		text := strings.Repeat("é", n)
		got, err := parseDistilled(`[{"kind":"fact","text":"` + text + `"}]`)
		if err != nil {
			t.Fatal(err)
		}
		if kept := len(got) == 1; kept != (n <= memory.MaxAutoRunes) {
			t.Fatalf("%d runes: kept %v", n, kept)
		}
		if len(got) == 1 {
			if _, _, err := st.Add(memory.Entry{Kind: got[0].Kind, Text: got[0].Text, Source: memory.SourceAuto}); err != nil {
				t.Fatalf("%d runes: kept by the parser, refused by the store: %v", n, err)
			}
		}
	}
}
