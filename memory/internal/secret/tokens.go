package secret

import (
	"regexp"
	"strings"
)

// privateKeyHeader is the first line of a PEM private key: a memory holding
// it holds (part of) the key, even when the rest was cut off.
var privateKeyHeader = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)

// skKey is the "sk-" shape many model providers use for API keys (gitleaks
// knows only the variants with a fixed marker inside).
var skKey = regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)

// prefixedKey reports whether text holds an "sk-" key: a long body with
// letters and digits ("sk-learn-is-a-library" has none).
func prefixedKey(text string) bool {
	if !strings.Contains(text, "sk-") {
		return false
	}
	for _, m := range skKey.FindAllString(text, -1) {
		if body := m[3:]; hasDigit(body) && hasLetter(body) {
			return true
		}
	}
	return false
}

// urlPassword reports whether s, the text after a URL's "://", starts
// with a user part that holds a password: "user:password@host",
// ":password@host".
func urlPassword(s string) bool {
	end := strings.IndexAny(s, "/?#@ \t\r\n")
	if end < 0 || s[end] != '@' || end+1 >= len(s) || strings.IndexByte("/?#@: \t\r\n", s[end+1]) >= 0 {
		return false
	}
	_, pass, ok := strings.Cut(s[:end], ":")
	return ok && !placeholder(pass)
}

// minHex and minRandom are the shortest runs of hex digits and of token
// characters looked at.
const (
	minHex    = 32
	minRandom = 24
)

// hashContext and keyContext are the words that say what a long hex run
// before them is: a hash or an id ("commit 3f2a…", "sha256 …", "request
// id …"), or a key.
var (
	hashContext = regexp.MustCompile(`(?i)\b(?:commit|sha-?\d*|md5|hash(?:es)?|checksum|digest|fingerprint|revision|rev|blob|tree|object|ids?|uuid|guid|trace|request|build|etag)\b|提交|哈希|校验|校驗|指纹|指紋`)
	keyContext  = regexp.MustCompile(`(?i)key|token|secret|passw|api|bearer|auth|credential|密钥|密鑰|令牌`)
)

// contextBytes is how far before a token its context words are looked for.
const contextBytes = 48

// findToken looks for credentials that have no name before them:
// connection strings with a password, long hex tokens and long random
// strings.
func findToken(text string) (what string, found bool) {
	for off := 0; ; {
		i := strings.Index(text[off:], "://")
		if i < 0 {
			break
		}
		off += i + 3
		if off-3 > 0 && groupByte(text[off-4]) && urlPassword(text[off:]) {
			return "a connection string with a password", true
		}
	}
	found = false
	runs(text, wordByte, minHex, func(start, end int) bool {
		found = hexDigits(text[start:end]) && secretHex(text, start, end)
		return found
	})
	if found {
		return "a long hex token (a key)", true
	}
	runs(text, tokenByte, minRandom, func(start, end int) bool {
		found = randomLooking(text[start:end])
		return found
	})
	if found {
		return "a long random string (a key or token)", true
	}
	return "", false
}

// runs calls f with the bounds of each longest run of bytes of class in of
// at least min bytes, until f returns true.
func runs(text string, in func(byte) bool, min int, f func(start, end int) bool) {
	for i := 0; i < len(text); {
		if !in(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && in(text[j]) {
			j++
		}
		if j-i >= min && f(i, j) {
			return
		}
		i = j
	}
}

// wordByte is a byte of a word as regexp's \b sees it; tokenByte one of a
// key or token, base64 included.
func wordByte(c byte) bool { return groupByte(c) }

func tokenByte(c byte) bool { return groupByte(c) || c == '+' || c == '/' || c == '=' || c == '-' }

// hexDigits reports whether s is all hex digits of one case.
func hexDigits(s string) bool {
	lower, upper := true, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		digit := c >= '0' && c <= '9'
		lower = lower && (digit || c >= 'a' && c <= 'f')
		upper = upper && (digit || c >= 'A' && c <= 'F')
	}
	return lower || upper
}

// secretHex reports whether the hex run text[start:end] is a key rather
// than a hash or an id: a 40-digit run (a git commit) or one named a hash
// is a key only when a key word comes before it.
func secretHex(text string, start, end int) bool {
	run := text[start:end]
	if !hasDigit(run) || !hasLetter(run) {
		return false
	}
	before := lineBefore(text, start)
	if keyContext.MatchString(before) {
		return true
	}
	return len(run) != 40 && !hashContext.MatchString(before)
}

// lineBefore is at most contextBytes of text's line before position i.
func lineBefore(text string, i int) string {
	start := max(0, i-contextBytes)
	if nl := strings.LastIndexByte(text[start:i], '\n'); nl >= 0 {
		start += nl + 1
	}
	return text[start:i]
}

// randomLooking reports whether a token looks generated: upper case, lower
// case and digits with a high Shannon entropy, or letters and digits with
// an entropy no hex string or word reaches, and classes mixed inside its
// parts. Words, paths, hex hashes, UUIDs and names made of words, numbers
// and capitals ("sync-conflict-20261201-101010-ABCDEFG") do not.
func randomLooking(tok string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	if !digit || (!upper && !lower) || !mixedPart(tok) {
		return false
	}
	h := shannon(tok)
	if upper && lower {
		return h >= 4.0
	}
	return len(tok) >= 32 && !strings.Contains(tok, "/") && h >= 4.3
}

// mixedPart reports whether one of the parts of tok between separators
// mixes character classes (upper case, lower case, digits) beyond a
// capitalised word.
func mixedPart(tok string) bool {
	for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return strings.ContainsRune("-_./+=", r) }) {
		if len(part) >= 4 && keyish(part) && !digits(part, 1, len(part)) && !allUpper(part) {
			return true
		}
	}
	return false
}

// allUpper reports whether s has no lower-case letter and no digit.
func allUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			return false
		}
	}
	return true
}

// placeholder reports whether a value stands for a password instead of
// being one: "<password>", "${DB_PASS}", "****", "xxx", "password".
func placeholder(v string) bool {
	v = strings.Trim(v, `"'`)
	if v == "" {
		return true
	}
	switch v[0] {
	case '<', '$', '{', '%', '[':
		return true
	}
	if strings.Trim(v, "*xX.•") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "password", "pass", "passwd", "pwd", "pw", "secret", "token", "redacted", "hidden", "changeme",
		"none", "null", "nil", "empty", "n/a", "unknown", "example", "placeholder":
		return true
	}
	return false
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasLetter(s string) bool {
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return true
		}
	}
	return false
}
