package secret

import "strings"

// compact removes the spaces and dashes people put inside a key to read it
// or to slip it past a filter ("AKIA IOSF ODNN …", "sk-proj- Xa9K d0Lm",
// "ghp_1a2B-3c4D-…"): a separator goes when the groups on both sides look
// like pieces of a key, or the one before is a known key prefix. A dash
// with spaces around it stays, without the spaces, as some formats have
// dashes of their own ("xoxb-…-…"). Ordinary words are never joined, so
// the result is only worth checking against the known key formats.
func compact(text string) string {
	var b strings.Builder
	changed := false
	prev := ""
	i := 0
	for i < len(text) {
		j := i
		for j < len(text) && groupByte(text[j]) {
			j++
		}
		if j > i {
			prev = text[i:j]
			if changed {
				b.WriteString(prev)
			}
			i = j
			continue
		}
		j = i
		for j < len(text) && !groupByte(text[j]) {
			j++
		}
		sep, next := text[i:j], nextGroup(text[j:])
		keep := joinedSeparator(prev, sep, next)
		if keep != sep && !changed {
			changed = true
			b.Grow(len(text))
			b.WriteString(text[:i])
		}
		if changed {
			b.WriteString(keep)
		}
		prev = ""
		i = j
	}
	if !changed {
		return text
	}
	return b.String()
}

// joinedSeparator is what remains of separator sep between the groups prev
// and next: nothing, a dash, or sep itself.
func joinedSeparator(prev, sep, next string) string {
	if prev == "" || next == "" || len(sep) > 3 || !keyish(next) {
		return sep
	}
	pieces, prefix := keyish(prev), keyPrefix(prev)
	if !pieces && !prefix {
		return sep
	}
	switch strings.Trim(sep, " \t\r\n") {
	case "":
		return ""
	case "-":
		if sep == "-" {
			if pieces && !prefix {
				return ""
			}
			return sep
		}
		return "-"
	}
	return sep
}

// nextGroup is the run of group bytes at the start of s.
func nextGroup(s string) string {
	j := 0
	for j < len(s) && groupByte(s[j]) {
		j++
	}
	return s[:j]
}

// groupByte reports whether c can be part of a group of a key.
func groupByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_'
}

// keyish reports whether group g looks like a piece of a key rather than a
// word: not all lower case and not a capitalised word ("Xa9Kd0Lm", "IOSF",
// "4821", "A" are pieces; "the", "Router" are words).
func keyish(g string) bool {
	if g == "" || strings.HasSuffix(g, "_") {
		return false
	}
	lowerTail := true
	for i := 1; i < len(g); i++ {
		if c := g[i]; c < 'a' || c > 'z' {
			lowerTail = false
			break
		}
	}
	c := g[0]
	switch {
	case c >= 'a' && c <= 'z':
		return !lowerTail
	case c >= 'A' && c <= 'Z':
		return !lowerTail || len(g) == 1
	}
	return true
}

// keyPrefixes are the words known key formats start with, before a dash.
var keyPrefixes = map[string]bool{
	"sk": true, "proj": true, "ant": true, "api03": true, "admin": true, "svcacct": true,
	"live": true, "test": true, "prod": true, "glpat": true, "xapp": true,
	"xoxa": true, "xoxb": true, "xoxe": true, "xoxo": true, "xoxp": true, "xoxr": true, "xoxs": true,
}

// keyPrefix reports whether group g is the start of a known key format
// ("sk", "proj", "xoxb", or one ending in an underscore such as "ghp_").
func keyPrefix(g string) bool {
	return strings.HasSuffix(g, "_") || keyPrefixes[strings.ToLower(g)]
}
