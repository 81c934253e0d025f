package secret

import (
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// gitleaksTOML is the default rule file of gitleaks v8.30.1
// (config/gitleaks.toml), unchanged; see LICENSE.gitleaks.
//
//go:embed gitleaks.toml
var gitleaksTOML string

// ruleFile is the part of the gitleaks config format that texts without a
// file path or a commit can use.
type ruleFile struct {
	Allowlist  allowlistFile   `toml:"allowlist"`
	Allowlists []allowlistFile `toml:"allowlists"`
	Rules      []ruleEntry     `toml:"rules"`
}

type ruleEntry struct {
	ID          string          `toml:"id"`
	Regex       string          `toml:"regex"`
	Path        string          `toml:"path"`
	SecretGroup int             `toml:"secretGroup"`
	Entropy     float64         `toml:"entropy"`
	Keywords    []string        `toml:"keywords"`
	Allowlists  []allowlistFile `toml:"allowlists"`
}

type allowlistFile struct {
	Condition   string   `toml:"condition"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	StopWords   []string `toml:"stopwords"`
	Paths       []string `toml:"paths"`
	Commits     []string `toml:"commits"`
}

// rule is one gitleaks rule. Its regular expressions are compiled on its
// first use, as most texts want few rules and compiling all of them takes
// tens of milliseconds.
type rule struct {
	id          string
	secretGroup int
	entropy     float64
	keywords    []int // into ruleSet.keywords; none means the rule always runs
	assignment  bool  // the rule asks for "keyword … = value" (see assignedNear)

	src      string
	allowSrc []allowlistFile
	once     sync.Once
	err      error // a rule that does not compile finds nothing
	re       *regexp.Regexp
	allows   []allowlist
}

// compile compiles r's regular expressions, once.
func (r *rule) compile() error {
	r.once.Do(func() {
		if r.re, r.err = regexp.Compile(r.src); r.err != nil {
			return
		}
		if r.secretGroup > r.re.NumSubexp() {
			r.err = fmt.Errorf("secretGroup %d of %d groups", r.secretGroup, r.re.NumSubexp())
			return
		}
		r.allows, r.err = compileAllowlists(r.allowSrc)
	})
	if r.err != nil {
		return fmt.Errorf("rule %s: %w", r.id, r.err)
	}
	return nil
}

// assignmentOperators is the operator group of gitleaks' rules for a
// keyword assigned a value ("api_key = …", "token: …").
const assignmentOperators = `(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// allowlist lets a finding through as harmless when its target matches re
// or its secret contains a stop word. Only the checks that need no file
// path or commit are kept.
type allowlist struct {
	target    string // "secret" (the default), "match" or "line"
	re        *regexp.Regexp
	stopWords []string // lower case
}

// ruleSet is the compiled rule file.
type ruleSet struct {
	rules    []*rule
	global   []allowlist
	keywords *literals // of all rules, lower case
}

// rules compiles the embedded rule file once, on first use.
var rules = sync.OnceValue(func() *ruleSet {
	rs, err := parseRules(gitleaksTOML)
	if err != nil {
		panic(fmt.Sprintf("secret: the embedded gitleaks rules: %v", err))
	}
	return rs
})

// parseRules reads a gitleaks rule file; its rules compile on first use
// (see compileAll). Rules that apply only to some file paths are left out:
// a memory has no path.
func parseRules(src string) (*ruleSet, error) {
	var f ruleFile
	if _, err := toml.Decode(src, &f); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	rs := &ruleSet{}
	ids := map[string]int{}
	var words []string
	var err error
	if rs.global, err = compileAllowlists(append([]allowlistFile{f.Allowlist}, f.Allowlists...)); err != nil {
		return nil, fmt.Errorf("global allowlist: %w", err)
	}
	for _, e := range f.Rules {
		if e.Regex == "" || e.Path != "" {
			continue
		}
		r := &rule{id: e.ID, secretGroup: e.SecretGroup, entropy: e.Entropy,
			assignment: strings.Contains(e.Regex, assignmentOperators), src: e.Regex, allowSrc: e.Allowlists}
		for _, k := range e.Keywords {
			k = strings.ToLower(k)
			id, ok := ids[k]
			if !ok {
				id = len(words)
				ids[k] = id
				words = append(words, k)
			}
			r.keywords = append(r.keywords, id)
		}
		rs.rules = append(rs.rules, r)
	}
	rs.keywords = newLiterals(words)
	return rs, nil
}

// compileAll compiles every rule now, and reports the first that does not
// compile.
func (rs *ruleSet) compileAll() error {
	for _, r := range rs.rules {
		if err := r.compile(); err != nil {
			return err
		}
	}
	return nil
}

// compileAllowlists keeps the checks a text can pass: an allowlist whose
// every condition must hold (condition AND) and that asks for a path or a
// commit can never let a memory through, and path and commit checks alone
// never match.
func compileAllowlists(files []allowlistFile) ([]allowlist, error) {
	var out []allowlist
	for _, a := range files {
		needsPlace := len(a.Paths) > 0 || len(a.Commits) > 0
		if strings.EqualFold(a.Condition, "AND") && needsPlace {
			continue
		}
		if len(a.Regexes) == 0 && len(a.StopWords) == 0 {
			continue
		}
		al := allowlist{target: a.RegexTarget}
		if len(a.Regexes) > 0 {
			re, err := regexp.Compile("(?:" + strings.Join(a.Regexes, ")|(?:") + ")")
			if err != nil {
				return nil, fmt.Errorf("allowlist: %w", err)
			}
			al.re = re
		}
		for _, w := range a.StopWords {
			al.stopWords = append(al.stopWords, strings.ToLower(w))
		}
		out = append(out, al)
	}
	return out, nil
}

// find returns the id of the first rule that finds a secret in text, whose
// lower-case form is lower.
func (rs *ruleSet) find(text, lower string) (id string, found bool) {
	present := make([]bool, 2*len(rs.keywords.words)) // held, then assigned a value
	assigned := present[len(rs.keywords.words):]
	rs.keywords.each(lower, func(pos, k int) bool {
		present[k] = true
		assigned[k] = assigned[k] || assignedNear(lower[pos+len(rs.keywords.words[k]):])
		return false
	})
	for _, r := range rs.rules {
		if !r.wanted(present, assigned) || r.compile() != nil {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			if r.finding(text, m) && !allowed(rs.global, text, m, r.secretOf(text, m)) {
				return r.id, true
			}
		}
	}
	return "", false
}

// wanted is gitleaks' keyword prefilter: a rule with keywords runs only on
// a text that holds one of them (present, by keyword), and a rule for an
// assigned value only when one of them is assigned something that can be
// a value (assigned).
func (r *rule) wanted(present, assigned []bool) bool {
	if len(r.keywords) == 0 {
		return true
	}
	for _, k := range r.keywords {
		if present[k] && (!r.assignment || assigned[k]) {
			return true
		}
	}
	return false
}

// Bounds of assignedNear, wider than the rules' own ("[ \t\w.-]{0,20}"
// after the keyword, "[\x60'"\s=]{0,5}" before a value of ten or more
// bytes) as a rule's keyword may end before its name does.
const (
	maxNameTail    = 48
	maxValueIndent = 8
	minValue       = 10
)

// assignedNear reports whether s, the text after a keyword, starts with
// the rest of a name, an operator and a value, as the rules for an
// assigned value ask: a cheap test that fails wherever they would.
func assignedNear(s string) bool {
	i := 0
	for i < len(s) && i < maxNameTail && nameTailByte(s[i]) {
		i++
	}
	for n := 0; i < len(s) && n < 3 && strings.IndexByte(" \t\r\n\f\v'\"", s[i]) >= 0; n++ {
		i++
	}
	if i >= len(s) || strings.IndexByte("=>:|,?", s[i]) < 0 {
		return false
	}
	for n := 0; i < len(s) && n < maxValueIndent && strings.IndexByte("=>:|,?`'\" \t\r\n", s[i]) >= 0; n++ {
		i++
	}
	n := 0
	for i < len(s) && (groupByte(s[i]) || strings.IndexByte(".=-+/", s[i]) >= 0) {
		i++
		n++
	}
	return n >= minValue
}

// nameTailByte is a byte of "[ \t\w.-]".
func nameTailByte(c byte) bool { return groupByte(c) || c == ' ' || c == '\t' || c == '.' || c == '-' }

// secretOf is the part of match m that is the secret: the rule's secret
// group, or else its first non-empty group, or else the whole match.
func (r *rule) secretOf(text string, m []int) string {
	if r.secretGroup > 0 {
		if m[2*r.secretGroup] < 0 {
			return ""
		}
		return text[m[2*r.secretGroup]:m[2*r.secretGroup+1]]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return text[m[2*g]:m[2*g+1]]
		}
	}
	return strings.Trim(text[m[0]:m[1]], "\n")
}

// finding reports whether match m is a finding of r: its secret has more
// entropy than the rule asks and no allowlist of the rule lets it through.
func (r *rule) finding(text string, m []int) bool {
	s := r.secretOf(text, m)
	if s == "" {
		return false
	}
	if r.entropy != 0 && shannon(s) <= r.entropy {
		return false
	}
	return !allowed(r.allows, text, m, s)
}

// allowed reports whether one of lists lets the finding at m, with secret
// s, through as harmless.
func allowed(lists []allowlist, text string, m []int, s string) bool {
	for _, a := range lists {
		if a.re != nil && a.re.MatchString(allowTarget(a.target, text, m, s)) {
			return true
		}
		if len(a.stopWords) > 0 {
			ls := strings.ToLower(s)
			for _, w := range a.stopWords {
				if strings.Contains(ls, w) {
					return true
				}
			}
		}
	}
	return false
}

// allowTarget is what an allowlist's regexes are matched against.
func allowTarget(target, text string, m []int, s string) string {
	switch target {
	case "match":
		return strings.Trim(text[m[0]:m[1]], "\n")
	case "line":
		start := strings.LastIndexByte(text[:m[0]], '\n') + 1
		end := m[1]
		if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
			end += i
		} else {
			end = len(text)
		}
		return text[start:end]
	}
	return s
}

// shannon is the Shannon entropy of s in bits per byte, as gitleaks
// measures it.
func shannon(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
