package analysis

// stem reduces a lowercase ASCII English word to its stem in place and
// returns the stem: first common irregular forms are mapped to their base
// ("went" → "go", "children" → "child"), then the Porter (1980) suffix rules
// are applied. Words of one or two letters are returned unchanged.
func stem(b []byte) []byte { return stemBase(b, irregular[string(b)]) }

// stemBase is stem for a word whose irregular base ("" for none) was
// looked up already.
func stemBase(b []byte, base string) []byte {
	if base != "" {
		b = append(b[:0], base...)
	}
	if len(b) <= 2 {
		return b
	}
	p := porter{b: b, k: len(b) - 1}
	p.step1ab()
	if p.k > 0 {
		p.step1c()
		p.step2()
		p.step3()
		p.step4()
		p.step5()
	}
	return p.b[:p.k+1]
}

// irregular maps frequent irregular English forms to the base form the
// regular ones stem to, so "won" meets "win" and "went" meets "go".
var irregular = map[string]string{
	"went": "go", "gone": "go", "won": "win", "drew": "draw", "drawn": "draw", "ran": "run",
	"saw": "see", "seen": "see", "ate": "eat", "eaten": "eat", "bought": "buy", "brought": "bring",
	"thought": "think", "took": "take", "taken": "take", "made": "make", "came": "come",
	"gave": "give", "given": "give", "felt": "feel", "found": "find", "told": "tell", "met": "meet",
	"kept": "keep", "began": "begin", "begun": "begin", "wrote": "write", "written": "write",
	"sang": "sing", "sung": "sing", "swam": "swim", "flew": "fly", "flown": "fly", "drove": "drive",
	"driven": "drive", "rode": "ride", "ridden": "ride", "spoke": "speak", "spoken": "speak",
	"chose": "choose", "chosen": "choose", "built": "build", "sent": "send", "spent": "spend",
	"taught": "teach", "caught": "catch", "fought": "fight", "sold": "sell", "held": "hold",
	"lost": "lose", "paid": "pay", "heard": "hear", "knew": "know", "known": "know", "grew": "grow",
	"grown": "grow", "threw": "throw", "thrown": "throw", "fell": "fall", "fallen": "fall",
	"broke": "break", "broken": "break", "wore": "wear", "worn": "wear", "forgot": "forget",
	"forgotten": "forget", "understood": "understand", "stood": "stand", "sat": "sit", "slept": "sleep",
	"woke": "wake", "woken": "wake", "hid": "hide", "hidden": "hide", "bit": "bite", "led": "lead",
	"fed": "feed", "fled": "flee", "dug": "dig", "hung": "hang", "shot": "shoot", "shook": "shake",
	"stole": "steal", "stolen": "steal", "struck": "strike", "swore": "swear", "tore": "tear",
	"torn": "tear", "froze": "freeze", "frozen": "freeze", "rang": "ring", "rung": "ring",
	"rose": "rise", "risen": "rise", "drank": "drink", "drunk": "drink", "became": "become",
	"forgave": "forgive", "forgiven": "forgive", "mistook": "mistake", "overcame": "overcome",
	"children": "child", "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth",
	"mice": "mouse", "geese": "goose", "better": "good", "best": "good", "worse": "bad", "worst": "bad",
}

// lexeme is what the Tokenizer knows of a word: a stopword, or the base of
// an irregular form.
type lexeme struct {
	stop bool
	base string
}

// lexicon holds englishStop and irregular in one table, so a word is
// looked up once.
var lexicon = func() map[string]lexeme {
	m := make(map[string]lexeme, len(englishStop)+len(irregular))
	for w := range englishStop {
		m[w] = lexeme{stop: true}
	}
	for w, base := range irregular {
		lx := m[w]
		lx.base = base
		m[w] = lx
	}
	return m
}()

// porter holds the word being stemmed: b[0..k] is the current word, j a
// cut point set by ends.
type porter struct {
	b    []byte
	k, j int
}

func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// m counts the vowel-consonant sequences in b[0..j].
func (p *porter) m() int {
	n, i := 0, 0
	for {
		if i > p.j {
			return n
		}
		if !p.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > p.j {
				return n
			}
			if p.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > p.j {
				return n
			}
			if !p.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

func (p *porter) vowelInStem() bool {
	for i := 0; i <= p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

func (p *porter) doubleC(j int) bool {
	return j >= 1 && p.b[j] == p.b[j-1] && p.cons(j)
}

func (p *porter) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	switch p.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

func (p *porter) ends(s string) bool {
	n := len(s)
	if n > p.k+1 || string(p.b[p.k-n+1:p.k+1]) != s {
		return false
	}
	p.j = p.k - n
	return true
}

func (p *porter) setTo(s string) {
	p.b = append(p.b[:p.j+1], s...)
	p.k = p.j + len(s)
}

func (p *porter) r(s string) {
	if p.m() > 0 {
		p.setTo(s)
	}
}

func (p *porter) step1ab() {
	if p.b[p.k] == 's' {
		switch {
		case p.ends("sses"):
			p.k -= 2
		case p.ends("ies"):
			p.setTo("i")
		case p.b[p.k-1] != 's':
			p.k--
		}
	}
	if p.ends("eed") {
		if p.m() > 0 {
			p.k--
		}
		return
	}
	if (p.ends("ed") || p.ends("ing")) && p.vowelInStem() {
		p.k = p.j
		switch {
		case p.ends("at"):
			p.setTo("ate")
		case p.ends("bl"):
			p.setTo("ble")
		case p.ends("iz"):
			p.setTo("ize")
		case p.doubleC(p.k):
			p.k--
			switch p.b[p.k] {
			case 'l', 's', 'z':
				p.k++
			}
		default:
			p.j = p.k
			if p.m() == 1 && p.cvc(p.k) {
				p.setTo("e")
			}
		}
	}
}

func (p *porter) step1c() {
	if p.ends("y") && p.vowelInStem() {
		p.b[p.k] = 'i'
	}
}

type rule struct{ from, to string }

var step2Rules = [256][]rule{
	'a': {{"ational", "ate"}, {"tional", "tion"}},
	'c': {{"enci", "ence"}, {"anci", "ance"}},
	'e': {{"izer", "ize"}},
	'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
	'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
	's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
	't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	'g': {{"logi", "log"}},
}

var step3Rules = [256][]rule{
	'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
	'i': {{"iciti", "ic"}},
	'l': {{"ical", "ic"}, {"ful", ""}},
	's': {{"ness", ""}},
}

func (p *porter) applyRules(rules []rule) {
	for _, r := range rules {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

func (p *porter) step2() {
	if p.k > 0 {
		p.applyRules(step2Rules[p.b[p.k-1]])
	}
}

func (p *porter) step3() { p.applyRules(step3Rules[p.b[p.k]]) }

var step4Suffixes = [256][]string{
	'a': {"al"},
	'c': {"ance", "ence"},
	'e': {"er"},
	'i': {"ic"},
	'l': {"able", "ible"},
	'n': {"ant", "ement", "ment", "ent"},
	'o': {"ion", "ou"},
	's': {"ism"},
	't': {"ate", "iti"},
	'u': {"ous"},
	'v': {"ive"},
	'z': {"ize"},
}

func (p *porter) step4() {
	if p.k < 1 {
		return
	}
	found := false
	for _, s := range step4Suffixes[p.b[p.k-1]] {
		if !p.ends(s) {
			continue
		}
		if s == "ion" && (p.j < 0 || (p.b[p.j] != 's' && p.b[p.j] != 't')) {
			continue
		}
		found = true
		break
	}
	if found && p.m() > 1 {
		p.k = p.j
	}
}

func (p *porter) step5() {
	p.j = p.k
	if p.b[p.k] == 'e' {
		a := p.m()
		if a > 1 || a == 1 && !p.cvc(p.k-1) {
			p.k--
		}
	}
	if p.b[p.k] == 'l' && p.doubleC(p.k) && p.m() > 1 {
		p.k--
	}
}
