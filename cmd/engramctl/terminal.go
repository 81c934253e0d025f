package main

import (
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// engramctl prints text that anyone may have written: memories (typed,
// imported, synced from another device, saved by a model), answers and
// reasoning. A control character in them makes a terminal act instead of
// show: ESC ]0;… BEL retitles the window, ESC [2J clears it, U+009B (the
// one-character CSI) does what ESC [ does, and the bidi overrides make a
// line read in another order than it is stored. So everything engramctl
// writes to its standard output and error goes through a textWriter, which
// drops them; `engramctl --raw` keeps them, for pipes that want the bytes.
//
// The filter applies whether or not the output is a terminal: a pipe into
// `less -R`, tee or a pager ends on a terminal too, and a file written now
// is shown on one later. JSON output is escaped instead of filtered
// (escapeJSON), so that it stays exact with or without --raw.

// unsafeRune reports whether a terminal acts on r rather than showing it:
// the C0 controls but newline and tab, DEL, the C1 controls, and the bidi
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// textWriter writes to w what it is given without the runes unsafeRune
// reports; a byte that is not UTF-8 becomes U+FFFD. Each rune is judged on
// its own, so text written piece by piece (a streamed answer) is filtered
// as if written whole, an escape sequence split over two pieces included;
// a rune whose bytes are split over two writes is held until its rest
// arrives. It is safe for concurrent use.
type textWriter struct {
	w io.Writer

	mu   sync.Mutex
	tail [utf8.UTFMax]byte // the start of a rune whose rest has not arrived
	n    int               // bytes in tail
	out  []byte
}

// Write filters p and writes the rest to the underlying writer. It
// reports all of p as written unless that write fails.
func (t *textWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	in := p
	if t.n > 0 {
		in = append(t.tail[:t.n:t.n], p...)
		t.n = 0
	}
	out := t.out[:0]
	for len(in) > 0 {
		r, size := utf8.DecodeRune(in)
		switch {
		case r == utf8.RuneError && size == 1 && !utf8.FullRune(in):
			t.n = copy(t.tail[:], in)
			in = nil
			continue
		case r == utf8.RuneError && size == 1:
			out = utf8.AppendRune(out, utf8.RuneError)
		case !unsafeRune(r):
			out = append(out, in[:size]...)
		}
		in = in[size:]
	}
	t.out = out
	if len(out) > 0 {
		if _, err := t.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// escapeJSON rewrites the runes of JSON text b that unsafeRune reports and
// encoding/json leaves as they are (DEL, the C1 controls, the bidi
// controls) as \uXXXX escapes: the same JSON values, with nothing left for
// a textWriter to drop. Outside its strings JSON is ASCII without
// controls, so only string contents change.
func escapeJSON(b []byte) []byte {
	var out []byte
	done := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			out = append(out, b[done:i]...)
			out = fmt.Appendf(out, `\u%04x`, r)
			done = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}
