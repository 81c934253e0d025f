package memory

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
)

// ErrSecret: the text looks like a credential (a key, token, password or
// private key), which is never stored from the model or distillation and
// only on a person's explicit confirmation otherwise.
var ErrSecret = errors.New("not saved: it looks like a secret")

// secretPatterns are the credential formats Secret knows, with what each is.
var secretPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a private key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)},
	{"an AWS access key", regexp.MustCompile(`\b(AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`)},
	{"a GitHub token", regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
	{"a Slack token", regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`)},
	{"an API key", regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)},
	{"an API key", regexp.MustCompile(`\b[rs]k_(live|test)_[0-9A-Za-z]{16,}`)},
	{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{"a JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{"a password", regexp.MustCompile(`(?i)\b(password|passwd|pwd|passcode|passphrase|pin|api[ _-]?key|secret key|access token|token)\s*(?:is|was|=|:|：)\s*["'“]?([^\s"'”]{3,})`)},
	{"a password", regexp.MustCompile(`(密码|口令|密钥|秘钥|令牌)\s*(?:是|为|:|：|=)\s*["'“]?([^\s"'”，。,]{3,})`)},
}

// notValues are words that follow "password is" in texts that hold no
// password ("the password is stored in 1Password").
var notValues = map[string]bool{
	"stored": true, "kept": true, "saved": true, "managed": true, "required": true, "needed": true, "set": true,
	"the": true, "a": true, "an": true, "not": true, "never": true, "always": true, "in": true, "on": true,
	"from": true, "rotated": true, "changed": true, "reset": true, "expired": true, "private": true,
	"secret": true, "unknown": true, "empty": true, "same": true, "different": true, "long": true, "short": true,
	"strong": true, "weak": true, "optional": true, "missing": true, "wrong": true, "correct": true,
}

// secretToken is a run of the characters keys and tokens are made of.
var secretToken = regexp.MustCompile(`[A-Za-z0-9+/=_-]{24,}`)

// Secret reports whether text holds a credential, and what it looks like
// ("an AWS access key"): known key and token formats, private-key blocks,
// JSON web tokens, "password is …" / "密码是…" statements, and long
// high-entropy strings that mix upper- and lower-case letters and digits.
func Secret(text string) (what string, found bool) {
	for _, p := range secretPatterns {
		for _, m := range p.re.FindAllStringSubmatch(text, -1) {
			if p.what == "a password" && notValues[strings.ToLower(m[len(m)-1])] {
				continue
			}
			return p.what, true
		}
	}
	for _, tok := range secretToken.FindAllString(text, -1) {
		if randomLooking(tok) {
			return "a long random string (a key or token)", true
		}
	}
	return "", false
}

// randomLooking reports whether a token mixes upper case, lower case and
// digits with a high Shannon entropy, as generated keys do (words, paths,
// hex hashes and UUIDs do not).
func randomLooking(tok string) bool {
	var upper, lower, digit bool
	counts := map[rune]int{}
	for _, r := range tok {
		counts[r]++
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	if !upper || !lower || !digit {
		return false
	}
	n := float64(len(tok))
	h := 0.0
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h >= 4.0
}

// checkSecret refuses a text that looks like a secret when it comes from
// the model or distillation; people and imports decide for themselves (the
// CLI and the inspector ask first).
func checkSecret(text string, src Source) error {
	if src != SourceAuto && src != SourceTool {
		return nil
	}
	if what, ok := Secret(text); ok {
		return fmt.Errorf("%w (%s)", ErrSecret, what)
	}
	return nil
}
