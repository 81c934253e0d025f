package memory

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestDedupeKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Use Tabs, not spaces!", "usetabsnotspaces"},
		{"  $HOME/go ~ 1+1=2 ", "homego112"},
		{"Ｐｙｔｈｏｎ３．１２", "python312"},
		{"我喜欢「绿茶」。", "我喜欢绿茶"},
		{"ÄÖ ß\u00a0Σ", "äößσ"},
		{"a\x00b", "a\x00b"}, // not punctuation nor space: kept
		{"bad \xff utf-8", "bad\ufffdutf8"},
	} {
		if got := dedupeKey(tc.in); got != tc.want {
			t.Errorf("dedupeKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestFormSetCandidates checks the dedupe index against comparing every
// pair: over texts of a small alphabet, where one often contains another,
// the candidates of a text hold every stored form it duplicates, through
// puts, replacements and removals.
func TestFormSetCandidates(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab记忆c")
	text := func() string {
		n := 1 + r.IntN(150)
		if r.IntN(4) == 0 {
			n = 1 + r.IntN(6)
		}
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	}
	var fs formSet
	stored := map[string]dedupeForm{}
	var texts []string
	for step := range 3000 {
		var s string
		if len(texts) > 0 && r.IntN(3) == 0 {
			// a piece or an extension of an earlier text
			s = texts[r.IntN(len(texts))]
			rs := []rune(s)
			a := r.IntN(len(rs)/2 + 1)
			s = string(rs[a : a+(len(rs)-a+1)/2+r.IntN((len(rs)-a)/2+1)])
			if r.IntN(2) == 0 {
				s = "ab"[:r.IntN(3)] + s + "，" + "记"[:3*r.IntN(2)]
			}
		} else {
			s = text()
		}
		f := newDedupeForm(s)
		want := map[string]bool{}
		for id, g := range stored {
			if f.matches(&g) {
				want[id] = true
			}
		}
		got := map[string]bool{}
		fs.candidates(&f, func(id string, g *dedupeForm) {
			if got[id] {
				t.Fatalf("step %d: candidate %s twice", step, id)
			}
			if g.text != stored[id].text {
				t.Fatalf("step %d: candidate %s has form of %q, stored %q", step, id, g.text, stored[id].text)
			}
			if f.matches(g) {
				got[id] = true
			}
		})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: duplicates of %q = %v, want %v", step, s, got, want)
		}
		id := fmt.Sprint("e", step%700) // replaces a stored form now and then
		switch r.IntN(10) {
		case 0:
			fs.remove(id)
			delete(stored, id)
		default:
			fs.put(id, f)
			stored[id] = f
		}
		texts = append(texts, s)
	}
	if len(fs.at) != len(stored) {
		t.Errorf("formSet holds %d forms, want %d", len(fs.at), len(stored))
	}
}

// isDuplicate reports whether two memory texts count as the same memory
// under the dedupe rules.
func isDuplicate(a, b string) bool { return dedupeMatch(newDedupeForm(a), newDedupeForm(b)) }

func TestDedupe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		dup  bool
	}{
		{"User prefers tabs.", "user prefers TABS", true},
		{"User prefers tabs", "The user prefers tabs!", true},                           // contained
		{"Prefers tabs", "Prefers tabs over spaces in every language he writes", false}, // under half
		{"ＵＳＥＲ　ｐｒｅｆｅｒｓ　ｔａｂｓ！", "user prefers tabs", true},                               // full width
		{"用户喜欢简洁的回答。", "用户喜欢简洁的回答", true},
		{"回答用中文", "请回答用中文。", true}, // 5 runes in 6
		{"用中文", "请用中文", false},     // 3 runes: below DedupeMinRunes, only equality counts
		{"用中文", "用中文！", true},      // equal after normalising
		{"用户喜欢简洁", "用户喜欢详细", false},
		{"tabs", "tabs only", true},           // 4 runes, half of 8 after normalising
		{"tabs", "tabs, not spaces", false},   // 4 runes, under half of 13
		{"use `go vet`", "Use go vet.", true}, // ASCII symbols are punctuation too
		{"tab", "tabs", false},                // 3 runes
		{"", "", false},
		{"!!!", "???", false}, // nothing left after normalising
	}
	for _, tc := range cases {
		if got := isDuplicate(tc.a, tc.b); got != tc.dup {
			t.Errorf("isDuplicate(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.dup)
		}
		if got := isDuplicate(tc.b, tc.a); got != tc.dup {
			t.Errorf("isDuplicate(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.dup)
		}
	}
}
