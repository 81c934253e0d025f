// Package textcut cuts texts to a size in bytes without splitting a
// character.
package textcut

import "unicode/utf8"

// UTF8 returns at most n bytes of s, not splitting a character.
func UTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Middle returns s when it has at most limit bytes, and otherwise its
// first head bytes, gap, and its end, limit bytes in all (more only when
// head and gap alone exceed it), not splitting a character: the start and
// the end of a text are where requests and conclusions are.
func Middle(s string, limit, head int, gap string) string {
	if len(s) <= limit {
		return s
	}
	start := len(s) - max(0, limit-head-len(gap))
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return UTF8(s, head) + gap + s[start:]
}
