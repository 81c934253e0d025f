package memory

import "testing"

func TestDedupeKey(t *testing.T) {
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
