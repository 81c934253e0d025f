// Package secret tells whether a text holds a credential: a key, token,
// password, PIN or private key, in the ways people write them.
//
// Known credential formats come from the default rule set of gitleaks
// v8.30.1 (gitleaks.toml, MIT licence, Copyright (c) 2019 Zachary Rice; see
// LICENSE.gitleaks), embedded unchanged and applied with its semantics:
// keywords as a prefilter, the secret group, the entropy threshold and the
// allowlists and stop words that need no file path. Our own rules add what
// a rule set for source code does not look for: statements in English,
// Chinese (simplified and traditional) and the common European languages
// ("the password for the router is …", "Passwort ist …", "密码是…"), PINs,
// connection strings with a password, long hex and random tokens, and keys
// written with spaces or dashes inside.
//
// Find is safe for concurrent use; the rules are compiled on first use.
package secret

import "strings"

// Find reports whether text holds a credential and says what it looks like
// ("a password", "an access token (github-pat)").
func Find(text string) (what string, found bool) {
	text = foldWidth(text)
	lower := lowerSame(text)
	if what, ok := findKnown(text, lower); ok {
		return what, true
	}
	if what, ok := findStatement(text, lower); ok {
		return what, true
	}
	if what, ok := findToken(text); ok {
		return what, true
	}
	if c := compact(text); c != text {
		return findKnown(c, lowerSame(c))
	}
	return "", false
}

// findKnown looks for the known formats of credentials: gitleaks' rules and
// the few shapes they leave out.
func findKnown(text, lower string) (what string, found bool) {
	if strings.Contains(lower, "-----begin") && privateKeyHeader.MatchString(text) {
		return "a private key", true
	}
	if id, ok := rules().find(text, lower); ok {
		return "a key or token (" + id + ")", true
	}
	if hasPrefixedKey(text) {
		return "an API key", true
	}
	return "", false
}
