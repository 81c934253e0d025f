package secret

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A secret may also come before its name: "Summer2024 is my password",
// "4821 is the PIN of my card", "abc123是我的密码". The name must then end
// its clause or go on with what it is for.

// maxBefore bounds the text before a name that is read for a value.
const maxBefore = 80

var (
	// isTheName is the value, the verb and the words before a name:
	// "Summer2024 is my (home wifi) ".
	isTheName = regexp.MustCompile(`(?i)(\S+)\s+(?:is|was|=|ist|est|es|é|è|är)\s+((?:[\p{L}'’-]+\s+){0,3})$`)
	// cjkIsTheName is the same in Chinese: "abc123是我的(银行卡)".
	cjkIsTheName = regexp.MustCompile(`([!-~]{3,})\s*(?:就是|是|为|為)(?:我的|我们的|我們的|他的|她的|你的|您的|的)?\p{Han}{0,6}$`)
	// notTheName are the words that, after the verb, make the name any
	// such secret rather than the one it is ("password123 is a bad
	// password").
	notTheName = set("a an any some no not one another every each such ein eine kein keine un une uno una um uma")
	// purposeWords may go on after a name whose value came before it.
	purposeWords = set("for of to on at in with für vom von zum zur du de del da do dla voor van för till di della per")
)

// valueBefore reports whether before, the text up to a name of kind k,
// ends with a value and a verb that give it, and after, the text after
// the name, ends the clause or says what the secret is for.
func valueBefore(k kind, before, after string) bool {
	if !endsClause(after) {
		return false
	}
	m := isTheName.FindStringSubmatch(before[max(0, len(before)-maxBefore):])
	if m == nil || notTheName[strings.ToLower(strings.Fields(m[2] + " .")[0])] {
		return false
	}
	w := strings.Trim(m[1], `.,;!?()[]{}"'“”‘’«»`)
	switch k {
	case kindPIN:
		return digits(w, 4, 12)
	case kindCVV:
		return digits(w, 3, 4)
	case kindKey:
		return strongToken(w)
	}
	return !pathLike(w) && (len(w) >= 6 && tokenLike(w) || digits(w, 4, 64))
}

// cjkValueBefore is valueBefore for a CJK name: an ASCII value with a
// digit before "是我的…".
func cjkValueBefore(before, after string) bool {
	if r, _ := utf8.DecodeRuneInString(after); unicode.Is(unicode.Han, r) {
		return false
	}
	m := cjkIsTheName.FindStringSubmatch(before[max(0, len(before)-maxBefore):])
	return m != nil && hasDigit(m[1]) && !placeholder(m[1])
}

// endsClause reports whether s, the text after a name, is the end of a
// clause or of the text, or goes on with what the secret is for.
func endsClause(s string) bool {
	s = strings.TrimLeft(s, " \t")
	r, _ := utf8.DecodeRuneInString(s)
	if s == "" || !wordRune(r) {
		return true
	}
	w, _, _ := strings.Cut(s, " ")
	return purposeWords[strings.ToLower(w)]
}

// pathLike reports whether w is a path, a URL or a file name rather than
// a secret ("~/.pgpass", "/tmp", "/etc/secret/key", "secrets.txt").
func pathLike(w string) bool {
	if strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") ||
		strings.HasPrefix(w, "/") || strings.Contains(w, "://") {
		return true
	}
	return fileName.MatchString(w) && !hasDigit(w[strings.LastIndexByte(w, '.'):])
}
