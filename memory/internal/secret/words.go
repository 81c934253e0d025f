package secret

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A statement is a secret named and given: a name ("password", "PIN",
// "API key", "Passwort", "密码"), optionally what it is for ("for the home
// router"), a connector ("is", ":", "=", "lautet", "est", "是") and then a
// value. The name says which values count (kind); the connector can be
// left out only before a value that cannot be a word.
type kind int

const (
	kindPassword kind = iota // any value that is not a word of the sentence
	kindPIN                  // digits
	kindKey                  // a long token of letters and digits
	kindPhrase               // a password, or words that are not a sentence
	kindCode                 // a password that cannot be a word: digits, or letters mixed with digits or symbols
	kindCVV                  // three or four digits
)

const (
	// purpose is what the secret is for, between the name and the
	// connector: "for the home router", "du wifi", "für den Router".
	purpose = `(?:\s+(?:for|of|to|on|at|in|with|für|fur|vom|von|zum|zur|des|du|de|del|da|do|dla|voor|van|för|till|di|della|per|на|от|для)\s(?:[^.:;!?\n=]|\.\S){0,40}?)?`
	// connector joins the name (and purpose) to the value.
	connector = `(\s*(?:=>|:=|->|→|=|:)\s*|\s+[-–—]\s+|,?\s*c['’]est\s+|\s+(?:(?:is|was|has been|had been) (?:set|changed|updated|reset) to|(?:is|was) now|set to|changed to|is|was|are|were|ist|lautet|war|est|es|era|é|è|är|er|je|jest|это)(?:\s*:\s*|\s+))`
	// bare is the space between a name and a value without a connector.
	bare = `(\s+)`
)

// afterName reads what follows a name: a purpose and a connector (group
// 1), or else only spaces (group 2).
var afterName = regexp.MustCompile(`(?i)^(?:` + purpose + connector + `|` + bare + `)`)

// maxAfterName bounds the text afterName reads.
const maxAfterName = 160

// names are the statement rules: the names, in lower case, and the kind
// of value they take. A name stands alone as a word, except the compound
// ones, which may end a longer word ("WLAN-Passwort", "Routerpasswort");
// none counts right after a word of notAfter ("zip code"); the names of
// a connected entry count only with a connector ("the code is 4711", not
// "code 2024 was released"), and those of a direct one only with a
// connector right after them ("pass: …", not "one pass for each …: …").
var names = []struct {
	words     []string
	compound  []string
	notAfter  map[string]bool
	connected bool
	direct    bool
	kind      kind
	what      string
}{
	{
		words: strings.Fields(`password passwords passwd passcode passcodes pwd pw mdp senha senhas
			contraseña contraseñas contrasena contrasenas lösenord lösenordet losenord adgangskode adgangskoden passord passordet
			salasana hasło haslo heslo jelszó jelszo пароль`),
		compound: []string{"passwort", "kennwort", "wachtwoord", "mot de passe", "mots de passe"},
		kind:     kindPassword, what: "a password",
	},
	{
		words: strings.Fields(`passphrase passphrases mnemonic`),
		compound: []string{"pass phrase", "pass-phrase", "seed phrase", "recovery phrase", "secret phrase", "wallet phrase",
			"backup phrase", "seed words", "recovery words"},
		kind: kindPhrase, what: "a passphrase",
	},
	{
		words: strings.Fields(`pin pins pincode pinnummer pin-code pin-nummer puk türcode zugangscode geheimzahl`),
		compound: []string{"pin code", "pin number", "code pin", "código pin", "door code", "gate code", "alarm code",
			"access code", "unlock code", "lock code", "safe code", "garage code", "entry code", "code secret",
			"code confidentiel"},
		kind: kindPIN, what: "a PIN",
	},
	{
		words:    strings.Fields(`cvv cvc cvv2 cvc2`),
		compound: []string{"security code", "card verification code", "card security code"},
		kind:     kindCVV, what: "a card security code",
	},
	{
		words: []string{"code", "codes"},
		notAfter: set(`zip postal post postcode area country dial dialing dialling calling promo promotional discount coupon
			voucher gift error status exit return source qr bar product tracking iata icao airport flight station swift bic
			bank branch sort routing color colour country hs tax vat course class building morse`),
		connected: true, kind: kindPIN, what: "a PIN",
	},
	{
		words: strings.Fields(`clave credential credentials`),
		compound: []string{"wifi key", "wi-fi key", "wlan key", "network key", "wpa key", "wpa2 key", "wep key",
			"wlan-schlüssel", "netzwerkschlüssel", "clé wifi", "clé wi-fi", "backup code", "backup codes", "recovery code",
			"recovery codes"},
		kind: kindCode, what: "a password",
	},
	{
		words: []string{"pass"}, connected: true, direct: true, kind: kindCode, what: "a password",
	},
	{
		words: strings.Fields(`key keys apikey apikeys token tokens secret secrets bearer cookie seed
			clé schlüssel chiave chave`),
		kind: kindKey, what: "a key or token",
	},
}

// cjkNames are names in Chinese, Japanese and Korean, where no space need
// come before the value ("密码是abc123", "银行卡密码 482193"), and
// cjkConnectors what may stand between.
var (
	cjkNames      = strings.Fields("密码 密碼 口令 pin码 pin碼 密钥 密鑰 秘钥 秘鑰 令牌 パスワード 暗証番号 비밀번호 비번")
	cjkConnectors = strings.Fields("改成了 改成 改为 改為 设置为 設置為 设为 設為 设成 設成 换成了 換成了 换成 換成 就是 叫做 叫 是 为 為 : = は 는 은")
)

// cjkUnits are the characters that, right after a number, make it a
// count or a date rather than a value.
const cjkUnits = "年月日号號位次个個分秒天周週小时時字条條元块塊岁歲"

// nameIndex finds every name of names and cjkNames in one pass; nameOf
// says, for each of its words, which names entry it is of (-1 for the CJK
// names) and whether it is a compound.
var nameIndex, nameOf = func() (*literals, []nameRef) {
	var words []string
	var refs []nameRef
	for i, n := range names {
		for _, w := range n.words {
			words, refs = append(words, w), append(refs, nameRef{i, false})
		}
		for _, w := range n.compound {
			words, refs = append(words, w), append(refs, nameRef{i, true})
		}
	}
	for _, w := range cjkNames {
		words, refs = append(words, w), append(refs, nameRef{-1, true})
	}
	return newLiterals(words), refs
}()

// nameRef is what nameOf says about a name.
type nameRef struct {
	entry    int
	compound bool
}

// findStatement looks for a secret named and given in a sentence; lower
// is text in lower case, byte for byte (see lowerSame).
func findStatement(text, lower string) (what string, found bool) {
	nameIndex.each(lower, func(start, w int) bool {
		ref, end := nameOf[w], start+len(nameIndex.words[w])
		if ref.entry < 0 {
			if cjkValue(text[end:]) || cjkValueBefore(text[:start], text[end:]) {
				what, found = "a password", true
			}
			return found
		}
		n := &names[ref.entry]
		if (!ref.compound && wordBefore(lower[:start])) || wordAfter(lower[end:]) || n.notAfter[lastWord(lower[:start])] {
			return false
		}
		rest := text[end:]
		if r, _ := utf8.DecodeRuneInString(rest); rest != "" && r >= cjkStart {
			if cjkValue(rest) { // "PIN是4821", "password：abc123"
				what, found = n.what, true
			}
			return found
		}
		a := afterName.FindStringSubmatchIndex(rest[:min(len(rest), maxAfterName)])
		if a != nil && (a[2] >= 0 || !n.connected) && (a[2] <= 0 || !n.direct) && valueFollows(n.kind, a[2] >= 0, rest[a[1]:]) ||
			valueBefore(n.kind, text[:start], rest) {
			what, found = n.what, true
		}
		return found
	})
	return what, found
}

// lastWord is the word that ends s, before spaces and dashes.
func lastWord(s string) string {
	s = strings.TrimRight(s, " \t-")
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return s[i+1:]
}

// wordBefore and wordAfter report whether a letter or digit ends s or
// starts s: whether a name found there is part of a longer word. CJK
// characters are not letters here: they need no space between words.
func wordBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && wordRune(r)
}

func wordAfter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && wordRune(r)
}

// cjkStart is where the CJK blocks of Unicode begin.
const cjkStart = '\u2E80'

func wordRune(r rune) bool { return r < cjkStart && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// lowerSame is s in lower case, rune by rune where that keeps the bytes of
// the rune as many (invalid bytes stay as they are), so that an offset
// in it is one in s.
func lowerSame(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); r != utf8.RuneError && utf8.RuneLen(l) == size {
			b = utf8.AppendRune(b, l)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// valueFollows reports whether rest, the text after a name of kind k (and
// a connector, when connected), starts with a value.
func valueFollows(k kind, connected bool, rest string) bool {
	v := parseValue(rest)
	if len(v.words) == 0 {
		return false
	}
	w := v.words[0]
	if len(v.words) >= 3 && v.words[1] == "/" {
		w = v.words[2] // "user/pass: admin / Adm1n2024"
	}
	switch k {
	case kindPIN:
		return digits(w, 4, 12)
	case kindCVV:
		return digits(w, 3, 4)
	case kindKey:
		return strongToken(w)
	}
	if pathLike(w) {
		return false
	}
	if k == kindCode {
		return len(w) >= 5 && tokenLike(w) || digits(w, 4, 64)
	}
	if v.quoted {
		return !placeholder(w)
	}
	if placeholder(w) || functionWord(w) {
		return false
	}
	if !connected {
		return len(w) >= 6 && tokenLike(w) || digits(w, 4, 64)
	}
	switch {
	case tokenLike(w) || digits(w, 3, 64):
		return true
	case len(v.words) == 1:
		return plausibleWord(w)
	}
	return passphrase(v.words, k == kindPhrase)
}

// cjkValue reports whether rest, the text after a CJK name, starts with a
// value in ASCII: any word after a connector ("是"), else one with a digit.
func cjkValue(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	connected := false
	for _, c := range cjkConnectors {
		if strings.HasPrefix(rest, c) {
			rest, connected = strings.TrimLeft(rest[len(c):], " \t"), true
			break
		}
	}
	end := 0
	for end < len(rest) && rest[end] > ' ' && rest[end] < utf8.RuneSelf {
		end++
	}
	w := strings.TrimRight(rest[:end], `.,;!?)]}"'`)
	w = strings.TrimLeft(w, `("'[:=`)
	if len(w) < 3 || placeholder(w) {
		return false
	}
	if unit, _ := utf8.DecodeRuneInString(rest[end:]); digits(w, 1, len(w)) && strings.ContainsRune(cjkUnits, unit) {
		return false // a number of something: "密码2024年起", "密码123456位"
	}
	if connected {
		return !functionWord(w)
	}
	return hasDigit(w)
}

// value is what follows a connector: a quoted string, or the first words
// of the clause.
type value struct {
	quoted bool
	words  []string
}

// maxValueWords is how many words of a clause a value is read from.
const maxValueWords = 6

// quotes pairs each opening quote with its closing one.
var quotes = map[rune]rune{'"': '"', '\'': '\'', '`': '`', '“': '”', '‘': '’', '«': '»', '„': '“', '「': '」', '『': '』'}

// adverbs may stand between a connector and its value ("is now …").
var adverbs = set("now still currently actually jetzt noch maintenant ahora")

// parseValue reads the value at the start of s.
func parseValue(s string) value {
	s = strings.TrimLeft(s, " \t")
	for {
		w, rest, _ := strings.Cut(s, " ")
		if !adverbs[strings.ToLower(w)] {
			break
		}
		s = strings.TrimLeft(rest, " \t")
	}
	if r, size := utf8.DecodeRuneInString(s); quotes[r] != 0 {
		body := s[size:]
		if end := strings.IndexRune(body, quotes[r]); end > 0 && !strings.Contains(body[:end], "\n") {
			return value{quoted: true, words: []string{body[:end]}}
		}
	}
	var v value
	for len(v.words) < maxValueWords {
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] == '\n' || s[0] == '\r' {
			break
		}
		end := strings.IndexAny(s, " \t\r\n")
		if end < 0 {
			end = len(s)
		}
		raw := s[:end]
		s = s[end:]
		w := strings.Trim(raw, `.,;!?)]}>"'(“”‘’«»。，；！？、`)
		if w == "" || len(v.words) > 0 && conjunctions[strings.ToLower(w)] {
			break
		}
		v.words = append(v.words, w)
		if strings.ContainsAny(lastRune(raw), ".,;!?。，；！？") {
			break
		}
	}
	return v
}

// lastRune is the last character of s.
func lastRune(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	return s[len(s)-size:]
}

// tokenLike reports whether w cannot be a word of a sentence: it mixes
// letters with digits or symbols, or has a capital inside ("hunter2",
// "Xk92!mmq", "LemonTree"). A hyphen or an apostrophe between letters
// joins words ("preemption-unsafe", "helper's") and is no symbol.
func tokenLike(w string) bool {
	if len(w) < 3 {
		return false
	}
	var letter, digit, symbol, innerUpper bool
	prevLower, prevLetter := false, false
	for i, r := range w {
		isLetter := false
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z':
			isLetter = true
		case r >= 'A' && r <= 'Z':
			isLetter = true
			innerUpper = innerUpper || prevLower
		case (r == '-' || r == '\'' || r == '’') && prevLetter && letterAt(w, i+utf8.RuneLen(r)):
		case r < utf8.RuneSelf:
			symbol = true
		default:
			isLetter = true
		}
		letter = letter || isLetter
		prevLower, prevLetter = r >= 'a' && r <= 'z', isLetter
	}
	return letter && (digit || symbol || innerUpper)
}

// letterAt reports whether a letter starts w[i:].
func letterAt(w string, i int) bool {
	r, _ := utf8.DecodeRuneInString(w[i:])
	return i < len(w) && unicode.IsLetter(r)
}

// strongToken reports whether w is a key: long, letters and digits, random
// enough, and not a path, a URL, an address or a file name.
func strongToken(w string) bool {
	if len(w) < 12 || !hasDigit(w) || !hasLetter(w) || shannon(w) < 3.0 {
		return false
	}
	if strings.ContainsAny(w[:1], "/~.") || strings.Contains(w, "://") || strings.Contains(w, "@") {
		return false
	}
	for _, r := range w {
		if r >= utf8.RuneSelf || r == ' ' {
			return false
		}
	}
	return !fileName.MatchString(w)
}

// fileName is a name ending in an extension ("key.pem", "token.json").
var fileName = regexp.MustCompile(`^[\w.-]+\.[a-z]{2,4}$`)

// digits reports whether w is a run of min to max digits.
func digits(w string, min, max int) bool {
	if len(w) < min || len(w) > max {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// plausibleWord reports whether w, the whole value of a clause, can be a
// password made of one word ("pineapple", "Bitwarden"), not a word that
// describes one ("stored", "weak", "forgotten", "gespeichert").
func plausibleWord(w string) bool {
	if utf8.RuneCountInString(w) < 4 || describingWords[strings.ToLower(w)] {
		return false
	}
	lw := strings.ToLower(w)
	if lw != w {
		return true
	}
	for _, suf := range []string{"ed", "ing", "ly", "able", "ible", "ful", "less", "ous", "ive", "ion", "ent", "ant", "ary", "ory"} {
		if strings.HasSuffix(lw, suf) {
			return false
		}
	}
	return true
}

// passphrase reports whether words, three or more, can be a passphrase:
// none of the first four is a function word ("correct horse battery
// staple", but not "stored in my manager"), or one at most after a name
// that says it is a phrase (seed words such as "abandon ability able
// about").
func passphrase(words []string, phrase bool) bool {
	if len(words) < 3 {
		return false
	}
	allowed := 0
	if phrase {
		allowed = 1
	}
	for i, w := range words {
		if i == 4 {
			break
		}
		if len(w) < 2 {
			return false
		}
		if functionWord(w) {
			if allowed == 0 {
				return false
			}
			allowed--
		}
	}
	return true
}

// functionWord reports whether w is a word that starts or carries a clause
// describing a secret rather than a secret ("the", "in", "stored", "ist").
func functionWord(w string) bool {
	return functionWords[strings.ToLower(w)]
}

// foldWidth maps full-width ASCII forms and the ideographic space to ASCII
// ("ｐａｓｓｗｏｒｄ：ｘ" reads as "password:x"); text without them is
// returned as it is.
func foldWidth(text string) string {
	if !strings.ContainsFunc(text, wide) {
		return text
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u3000':
			return ' '
		case r >= '\uFF01' && r <= '\uFF5E':
			return r - 0xFEE0
		}
		return r
	}, text)
}

func wide(r rune) bool { return r == '\u3000' || r >= '\uFF01' && r <= '\uFF5E' }
