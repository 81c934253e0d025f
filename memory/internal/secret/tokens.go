package secret

import (
	"regexp"
	"strings"
)

// privateKeyHeader is the first line of a PEM private key: a memory holding
// it holds (part of) the key, even when the rest was cut off.
var privateKeyHeader = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)

// prefixedKey is a key that starts with the prefix of a well-known format
// but has not quite its length or alphabet, as keys typed, cut or made up
// have: "sk-" (many model providers; gitleaks knows only the variants with
// a fixed marker inside), GitHub's, GitLab's, Slack's, Stripe's, Hugging
// Face's, npm's and PyPI's prefixes, then sixteen or more key characters.
var prefixedKey = regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}|\b(?:gh[pousr]_|github_pat_|glpat-|xox[abposre]-|xapp-|(?:sk|rk)_(?:live|test)_|hf_|npm_|pypi-)[A-Za-z0-9_-]{16,}`)

// prefixes are what a text must hold for prefixedKey to be worth running.
var prefixes = []string{"sk-", "gh", "glpat-", "xox", "xapp-", "_live_", "_test_", "hf_", "npm_", "pypi-"}

// hasPrefixedKey reports whether text holds a prefixedKey with letters and
// digits in its body ("sk-learn-is-a-library" has none).
func hasPrefixedKey(text string) bool {
	if !containsAny(text, prefixes) {
		return false
	}
	for _, m := range prefixedKey.FindAllString(text, -1) {
		body := m[strings.LastIndexAny(m[:min(len(m), 11)], "-_")+1:]
		if hasDigit(body) && hasLetter(body) {
			return true
		}
	}
	return false
}

// containsAny reports whether s contains one of words.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
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
	if dsnPassword(text) {
		return "a connection string with a password", true
	}
	if cardNumber(text) {
		return "a card number", true
	}
	text = maskPublicKeys(maskURLs(text))
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

// dsn is a Go database DSN with a password and no scheme:
// user:password@tcp(host:3306)/db.
var dsn = regexp.MustCompile(`[\w.-]+:([^\s:@/]+)@(?:tcp|unix|udp)\(`)

// dsnPassword reports whether text holds a DSN with a password.
func dsnPassword(text string) bool {
	if !strings.Contains(text, "@tcp(") && !strings.Contains(text, "@unix(") && !strings.Contains(text, "@udp(") {
		return false
	}
	for _, m := range dsn.FindAllStringSubmatch(text, -1) {
		if !placeholder(m[1]) {
			return true
		}
	}
	return false
}

// publicKey is an SSH public key: its base64 is no secret.
var publicKey = regexp.MustCompile(`\b(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) AAAA[A-Za-z0-9+/=]+`)

// maskPublicKeys blanks out the SSH public keys of text.
func maskPublicKeys(text string) string {
	if !strings.Contains(text, " AAAA") {
		return text
	}
	return publicKey.ReplaceAllStringFunc(text, func(k string) string { return strings.Repeat(" ", len(k)) })
}

// cardWords are the words that say a long number is a payment card's.
var cardWords = []string{"card", "visa", "mastercard", "amex", "karte", "carte", "tarjeta", "cartão", "carta", "卡号", "卡號", "信用卡", "银行卡", "銀行卡", "借记卡", "信用卡號"}

// cardNumber reports whether text names a payment card and holds a number
// of 13 to 19 digits, maybe in groups, that passes the Luhn check.
func cardNumber(text string) bool {
	if !containsAny(lowerSame(text), cardWords) {
		return false
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' || i > 0 && groupByte(text[i-1]) {
			continue
		}
		var ds []byte
		j := i
		for j < len(text) && len(ds) <= 19 {
			c := text[j]
			switch {
			case c >= '0' && c <= '9':
				ds = append(ds, c)
			case (c == ' ' || c == '-') && j+1 < len(text) && text[j+1] >= '0' && text[j+1] <= '9' && text[j-1] != ' ' && text[j-1] != '-':
			default:
				j = len(text)
				continue
			}
			j++
		}
		if len(ds) >= 13 && len(ds) <= 19 && luhn(ds) {
			return true
		}
	}
	return false
}

// luhn reports whether the digits ds pass the Luhn check.
func luhn(ds []byte) bool {
	sum := 0
	for i := range ds {
		d := int(ds[len(ds)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// maskURLs blanks out the URLs of text: their paths and ids are no keys
// (a key given in a query string has a name, "?api_key=…").
func maskURLs(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	b := []byte(text)
	for off := 0; ; {
		i := strings.Index(text[off:], "://")
		if i < 0 {
			break
		}
		start := off + i
		for start > 0 && (groupByte(text[start-1]) || text[start-1] == '+' || text[start-1] == '.' || text[start-1] == '-') {
			start--
		}
		end := off + i + 3
		for end < len(text) && text[end] > ' ' {
			end++
		}
		for j := start; j < end; j++ {
			b[j] = ' '
		}
		off = end
	}
	return string(b)
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
	letters := 0
	for i := 0; i < len(run); i++ {
		if run[i] > '9' {
			letters++
		}
	}
	if letters < 4 || len(run)-letters < 4 { // a number ("…925440e+38"), not a key
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
	if !digit || (!upper && !lower) || !mixedPart(tok) || identifier(tok) {
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

// identifier reports whether tok is a name made of words rather than a
// key: half of it or more is in runs of four or more letters that read
// like words (a lower-case run with vowels, "DecryptPKCS1v15SessionKey",
// "ParseTimeWithLooseRFC3339"), or it has four or more short parts
// between underscores (arg_op1_op2__SPSel_05), or it is a path of short
// parts and names (GOROOT/src/crypto/internal/fips140/v1.2.3).
func identifier(tok string) bool {
	if parts := strings.Split(tok, "_"); len(parts) >= 4 && allParts(parts, func(p string) bool { return len(p) <= 12 }) {
		return true
	}
	if parts := strings.Split(tok, "/"); len(parts) >= 3 && allParts(parts, func(p string) bool { return len(p) <= 8 || identifier(p) }) {
		return true
	}
	wordy := 0
	for i := 0; i < len(tok); {
		j := i
		if c := tok[j]; c >= 'A' && c <= 'Z' {
			j++
		}
		k := j
		for k < len(tok) && tok[k] >= 'a' && tok[k] <= 'z' {
			k++
		}
		if k-j >= 3 && k-i >= 4 && vowels(tok[i:k])*4 >= k-i {
			wordy += k - i
		}
		if k == i {
			k++
		}
		i = k
	}
	return 2*wordy >= len(tok)
}

// allParts reports whether every one of parts is ok.
func allParts(parts []string, ok func(string) bool) bool {
	for _, p := range parts {
		if !ok(p) {
			return false
		}
	}
	return true
}

// vowels counts the vowels of s, y included.
func vowels(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			n++
		}
	}
	return n
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
