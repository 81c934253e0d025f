package memory

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on what a store accepts.
const (
	// MaxAutoRunes is the longest text, in runes, of an entry distilled
	// automatically (SourceAuto).
	MaxAutoRunes = 400
	// MaxTextRunes is the longest text, in runes, of any other entry.
	MaxTextRunes = 8000
	// MaxFileSize is the largest memory file a store reads or writes.
	MaxFileSize = 64 << 20
)

// MaxRunes is the longest text, in runes, an entry from src may have.
func MaxRunes(src Source) int {
	if src == SourceAuto {
		return MaxAutoRunes
	}
	return MaxTextRunes
}

// CleanText checks a memory text and returns it as it would be stored:
// "\r\n" becomes "\n" and surrounding white space is trimmed. It fails with
// ErrInvalidText for invalid UTF-8 or control characters other than newline
// and tab, ErrEmpty for nothing left, and ErrTooLong for more runes than
// MaxRunes(src).
func CleanText(text string, src Source) (string, error) {
	if !utf8.ValidString(text) {
		return "", fmt.Errorf("%w: not valid UTF-8", ErrInvalidText)
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	for i, r := range text {
		if isControl(r) {
			return "", fmt.Errorf("%w: control character %U at byte %d", ErrInvalidText, r, i)
		}
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", ErrEmpty
	}
	if n, max := utf8.RuneCountInString(text), MaxRunes(src); n > max {
		return "", fmt.Errorf("%w: %d characters, at most %d for %s memories", ErrTooLong, n, max, sourceName(src))
	}
	return text, nil
}

// isControl reports the C0 and C1 control characters, except newline and tab.
func isControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f
}

func sourceName(src Source) string {
	if src == SourceAuto {
		return "distilled"
	}
	return string(src)
}

// CheckKind resolves a kind or alias (see ParseKind). An empty kind is
// KindFact; anything unknown is ErrUnknownKind.
func CheckKind(k Kind) (Kind, error) {
	if k == "" {
		return KindFact, nil
	}
	if k.Strength() > 0 {
		return k, nil
	}
	return ParseKind(string(k))
}

// checkSource resolves a source; empty is SourceUser.
func checkSource(s Source) (Source, error) {
	switch s {
	case "":
		return SourceUser, nil
	case SourceUser, SourceTool, SourceAuto, SourceImport:
		return s, nil
	}
	return "", fmt.Errorf("%w %q (want user, tool, auto or import)", ErrUnknownSource, string(s))
}
