package main

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/memory/internal/analysis"
)

// Caps on what one word or term keeps: past them the glosses and
// translations are too loose to help recall.
const (
	maxGlosses = 16 // English terms kept per Chinese word
	maxChinese = 8  // Chinese words kept per English term
)

// weighted is a string with a weight; weights are relative within one list.
type weighted struct {
	s string
	w float64
}

// lexicon is the generator's in-memory form of the table.
type lexicon struct {
	words     []string              // Chinese (simplified) words, sorted
	glosses   map[string][]weighted // word → its English terms, best first
	terms     []string              // English terms, sorted
	chinese   map[string][]weighted // term → its Chinese words, best first
	foldRunes [][2]rune             // traditional → simplified, sorted by traditional
	foldWords [][2]string           // traditional words whose runes do not fold alone, sorted
	maxRunes  int                   // runes in the longest word
}

func build(entries []entry) *lexicon {
	lx := &lexicon{glosses: map[string][]weighted{}, chinese: map[string][]weighted{}}
	groups := map[string][]entry{}
	for _, e := range entries {
		if !allHan(e.simp) {
			continue
		}
		if _, seen := groups[e.simp]; !seen {
			lx.words = append(lx.words, e.simp)
		}
		groups[e.simp] = append(groups[e.simp], e)
	}
	slices.Sort(lx.words)
	raw := map[string][]weighted{} // word → its terms
	for _, w := range lx.words {
		lx.maxRunes = max(lx.maxRunes, utf8.RuneCountInString(w))
		ts := glossTerms(groups[w])
		if len(ts) == 0 {
			continue
		}
		raw[w] = ts
		lx.glosses[w] = ts
	}
	lx.reverse(raw)
	lx.fold(entries)
	return lx
}

// glossTerms gives the English terms of one word's entries, best first: a
// term from an earlier sense, or from a short gloss, weighs more. Entries of
// common words (lower-case pinyin) come before proper nouns. Senses that say
// nothing a query can match (grammatical notes, stopwords) still count, so a
// function word's later readings weigh little (的 is "taxi" only fifth);
// noise (variants, surnames, references) does not.
func glossTerms(es []entry) []weighted {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b entry) int { return boolCmp(isProper(a), isProper(b)) })
	best := map[string]float64{}
	var order []string
	sense := 0
	for _, e := range es {
		for _, s := range e.senses {
			counts := false
			for _, g := range strings.Split(cleanSense(s), ";") {
				head, tail, noise := glossWords(g)
				counts = counts || !noise
				if len(head) == 0 {
					continue
				}
				w := 1 / math.Sqrt(float64(1+sense)) / math.Sqrt(float64(len(head)))
				for i, t := range slices.Concat(head, tail) {
					tw := w
					if i >= len(head) {
						tw /= 2
					}
					if old, ok := best[t]; !ok {
						order = append(order, t)
						best[t] = tw
					} else if tw > old {
						best[t] = tw
					}
				}
			}
			if counts {
				sense++
			}
		}
	}
	out := make([]weighted, len(order))
	for i, t := range order {
		out[i] = weighted{t, best[t]}
	}
	// Stable: equal weights keep the order the dictionary gave them.
	slices.SortStableFunc(out, func(a, b weighted) int { return cmpDesc(a.w, b.w) })
	if len(out) > maxGlosses {
		out = out[:maxGlosses]
	}
	return out
}

var (
	// reference to another headword: 乾|干[gan1], 天干[tian1 gan1], 屄[bi1]
	refRe = regexp.MustCompile(`[\p{Han}〇]+(\|[\p{Han}〇]+)?(\[[^\]]*\])?|\[[^\]]*\]`)
	// innermost parenthetical remark: (bound form), (Tw), (of eyes)
	parenRe = regexp.MustCompile(`\([^()]*\)`)
)

// cleanSense drops cross-references and parenthetical remarks from one sense.
func cleanSense(s string) string {
	s = refRe.ReplaceAllString(s, " ")
	for {
		t := parenRe.ReplaceAllString(s, " ")
		if t == s {
			break
		}
		s = t
	}
	return strings.NewReplacer("(", " ", ")", " ").Replace(s)
}

// noisePrefixes start a gloss that names no meaning of the word itself.
var noisePrefixes = []string{
	"surname", "two-character surname", "erhua form of", "variant of", "old variant", "see ", "see also", "same as", "used in",
	"also written", "also pr", "taiwan pr", "pr.", "classifier", "cl:", "erhua variant",
	"abbreviation of", "kangxi radical", "character used", "component in ", "transliteration",
}

// grammarRe matches a gloss that describes a function word ("particle
// indicating …", "modal particle", "interjection of surprise") but not a
// particle of physics ("particle", "alpha particle").
var grammarRe = regexp.MustCompile(`^(an? )?(((modal|final|structural|aspect|grammatical|grammar|possessive|interrogative|exclamatory|literary|auxiliary|classical|cantonese|sentence-final) )+(particle|interjection)\b|(particle|interjection) )`)

// markers introduce a meaning without being part of it.
var markers = []string{"abbr. for", "abbr. of", "abbr. to", "abbr.", "lit.", "fig.", "also called ", "also ", "i.e.", "e.g.", "esp."}

// metaTerms are the dictionary's own shorthand, not meaning.
var metaTerms = map[string]bool{
	"sth": true, "sb": true, "sb'": true, "lit": true, "fig": true, "abbr": true, "etc": true,
	"esp": true, "e.g": true, "i.e": true, "var": true, "cl": true, "pr": true, "tw": true,
	"onom": true, "coll": true, "someon": true, "someth": true, "oneself": true, "one'": true,
}

// glossWords gives the index terms of one gloss (a part of a sense between
// semicolons), or nothing when the gloss is noise. The head is what comes
// before the first comma; the tail, after it, is mostly description
// ("Beijing municipality, capital of the People's Republic of China").
// noise says the gloss is a variant, surname or reference note; an empty
// gloss (a remark in brackets, only stopwords) is not noise.
func glossWords(g string) (head, tail []string, noise bool) {
	g = strings.TrimSpace(strings.Trim(strings.TrimSpace(g), ",.:!?"))
	low := strings.ToLower(g)
	if low == "" {
		return nil, nil, false
	}
	for _, p := range noisePrefixes {
		if strings.HasPrefix(low+" ", p) {
			return nil, nil, true
		}
	}
	if strings.Contains(low, "variant of") {
		return nil, nil, true
	}
	if grammarRe.MatchString(low) {
		return nil, nil, false // a note on usage: a sense, but nothing to match
	}
	marked := false
	for changed := true; changed; {
		changed = false
		for _, m := range markers {
			if rest, ok := strings.CutPrefix(low, m); ok {
				low, changed, marked = strings.TrimSpace(rest), true, true
			}
		}
	}
	if marked && low == "" {
		return nil, nil, true // "abbr. for 新疆[Xin1 jiang1]": only a reference
	}
	first, rest, _ := strings.Cut(low, ",")
	head = indexTerms(first, nil)
	tail = indexTerms(rest, head)
	// "Itō or Itoh, Japanese surname": what kind of name it is, not a meaning
	tail = slices.DeleteFunc(tail, func(t string) bool { return t == "surnam" })
	if len(head) == 0 {
		return tail, nil, false
	}
	return head, tail, false
}

// indexTerms tokenizes s as the index does, keeping English terms that are
// not the dictionary's shorthand and not already in seen.
func indexTerms(s string, seen []string) []string {
	var out []string
	for _, t := range analysis.Tokenize(s) {
		if metaTerms[t] || !hasASCIILetter(t) || hasHan(t) || slices.Contains(out, t) || slices.Contains(seen, t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// reverse fills terms and chinese: for each English term, the words that
// translate it best. A word scores its weight for the term (an early sense,
// a short gloss) times 1 + ln(1 + the number of longer words built on it), a
// sign of a common word, halved for a single character (it has many
// meanings and matches only as a unigram); ties go to shorter words.
func (lx *lexicon) reverse(raw map[string][]weighted) {
	compounds := lx.compoundCounts()
	for _, w := range lx.words {
		for _, t := range raw[w] {
			if _, ok := lx.chinese[t.s]; !ok {
				lx.terms = append(lx.terms, t.s)
			}
			lx.chinese[t.s] = append(lx.chinese[t.s], weighted{w, t.w})
		}
	}
	slices.Sort(lx.terms)
	for _, t := range lx.terms {
		ws := lx.chinese[t]
		for i := range ws {
			ws[i].w *= 1 + math.Log1p(float64(compounds[ws[i].s]))
			if utf8.RuneCountInString(ws[i].s) == 1 {
				ws[i].w /= 2
			}
		}
		slices.SortFunc(ws, func(a, b weighted) int {
			if c := cmpDesc(a.w, b.w); c != 0 {
				return c
			}
			if c := utf8.RuneCountInString(a.s) - utf8.RuneCountInString(b.s); c != 0 {
				return c
			}
			return strings.Compare(a.s, b.s)
		})
		if len(ws) > maxChinese {
			ws = ws[:maxChinese]
		}
		top := ws[0].w
		for i := range ws {
			ws[i].w /= top
		}
		lx.chinese[t] = ws
	}
}

// compoundCounts counts, for each word, the longer words that contain it.
func (lx *lexicon) compoundCounts() map[string]int {
	isWord := make(map[string]bool, len(lx.words))
	for _, w := range lx.words {
		isWord[w] = true
	}
	counts := map[string]int{}
	seen := map[string]bool{}
	for _, w := range lx.words {
		clear(seen)
		rs := []rune(w)
		for i := range rs {
			for j := i + 1; j <= len(rs); j++ {
				if j-i == len(rs) {
					continue
				}
				sub := string(rs[i:j])
				if isWord[sub] && !seen[sub] {
					seen[sub] = true
					counts[sub]++
				}
			}
		}
	}
	return counts
}

// fold fills the traditional → simplified tables from the headword pairs. A
// traditional rune folds on its own when every pair maps it to the same
// simplified rune and it never appears in a simplified headword (so folding
// never changes simplified text). Traditional words that rune folding gets
// wrong are kept whole, unless they could be simplified text.
func (lx *lexicon) fold(entries []entry) {
	targets := map[rune]map[rune]bool{}
	inSimp := map[rune]bool{}
	for _, e := range entries {
		for _, r := range e.simp {
			inSimp[r] = true
		}
		t, s := []rune(e.trad), []rune(e.simp)
		if len(t) != len(s) {
			continue
		}
		for i := range t {
			if targets[t[i]] == nil {
				targets[t[i]] = map[rune]bool{}
			}
			targets[t[i]][s[i]] = true
		}
	}
	runes := map[rune]rune{}
	for t, ss := range targets {
		if len(ss) != 1 || inSimp[t] {
			continue
		}
		for s := range ss {
			if s != t {
				runes[t] = s
			}
		}
	}
	for t, s := range runes {
		lx.foldRunes = append(lx.foldRunes, [2]rune{t, s})
	}
	slices.SortFunc(lx.foldRunes, func(a, b [2]rune) int { return int(a[0] - b[0]) })

	words := map[string]string{}
	conflict := map[string]bool{}
	for _, e := range entries {
		if e.trad == e.simp || utf8.RuneCountInString(e.trad) != utf8.RuneCountInString(e.simp) {
			continue
		}
		if foldByRune(e.trad, runes) == e.simp {
			continue
		}
		if old, ok := words[e.trad]; ok && old != e.simp {
			conflict[e.trad] = true
		}
		words[e.trad] = e.simp
	}
	// A word that is also (part of) a simplified headword is not folded: 著
	// folds to 着 in 著急 but stays in 著作.
	for _, e := range entries {
		rs := []rune(e.simp)
		for i := range rs {
			for j := i + 1; j <= len(rs); j++ {
				if _, ok := words[string(rs[i:j])]; ok {
					conflict[string(rs[i:j])] = true
				}
			}
		}
	}
	for t, s := range words {
		if !conflict[t] {
			lx.foldWords = append(lx.foldWords, [2]string{t, s})
		}
	}
	slices.SortFunc(lx.foldWords, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
}

func foldByRune(s string, runes map[rune]rune) string {
	return strings.Map(func(r rune) rune {
		if f, ok := runes[r]; ok {
			return f
		}
		return r
	}, s)
}

func allHan(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return s != ""
}

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

func hasASCIILetter(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return 'a' <= r && r <= 'z' }) >= 0
}

// isProper reports whether e names a person, place or thing: CC-CEDICT
// capitalises the pinyin of proper nouns.
func isProper(e entry) bool {
	r, _ := utf8.DecodeRuneInString(e.pinyin)
	return unicode.IsUpper(r)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
