package secret

import (
	"strings"
	"testing"
)

func TestEmbeddedRules(t *testing.T) {
	rs := rules()
	if len(rs.rules) < 200 {
		t.Fatalf("%d rules compiled from gitleaks.toml, want over 200", len(rs.rules))
	}
	if err := rs.compileAll(); err != nil {
		t.Fatal(err)
	}
	if len(rs.global) == 0 {
		t.Error("no global allowlist")
	}
	ids := map[string]*rule{}
	for _, r := range rs.rules {
		ids[r.id] = r
	}
	if g := ids["generic-api-key"]; g == nil || !g.assignment || len(g.allows) == 0 {
		t.Errorf("generic-api-key = %+v, want an assignment rule with allowlists", g)
	}
	if _, ok := ids["nuget-config-password"]; ok {
		t.Error("a rule for some file paths only was kept")
	}
}

// semanticsTOML exercises the parts of the gitleaks format the detector
// applies.
const semanticsTOML = `
[allowlist]
regexes = ['''^dummy''']
stopwords = ["sample"]

[[rules]]
id = "group"
regex = '''tok_(?:x|(y))([a-z0-9]{8,})'''
secretGroup = 2
entropy = 2.5
keywords = ["tok_"]
[[rules.allowlists]]
regexTarget = "line"
regexes = ['''not a secret''']
[[rules.allowlists]]
condition = "AND"
paths = ['''\.md$''']
regexes = ['''.*''']

[[rules]]
id = "nokeywords"
regex = '''\bZZ[0-9]{6}\b'''
[[rules.allowlists]]
regexTarget = "match"
regexes = ['''ZZ000000''']

[[rules]]
id = "pathonly"
regex = '''.+'''
path = '''\.env$'''
`

func TestRuleSemantics(t *testing.T) {
	rs, err := parseRules(semanticsTOML)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.rules) != 2 {
		t.Fatalf("%d rules, want 2 (the path rule left out)", len(rs.rules))
	}
	if err := rs.compileAll(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text string
		want string // rule id, "" for none
	}{
		{"tok_xa1b2c3d4e5", "group"},
		{"tok_ya1b2c3d4e5", "group"},            // the secret group, not the first group ("y")
		{"tok_xaaaaaaaaaa", ""},                 // entropy at most 2.5
		{"TOK_Xa1b2c3d4e5", ""},                 // the regex is case-sensitive, the keyword check is not
		{"tok_xdummy1234z", ""},                 // global allowlist on the secret
		{"tok_xsample1234", ""},                 // global stop word
		{"tok_xa1b2c3d4e5 is not a secret", ""}, // rule allowlist on the line
		{"line one\ntok_xa1b2c3d4e5\nnot a secret", "group"},
		{"ZZ123456", "nokeywords"},
		{"ZZ000000", ""}, // rule allowlist on the match
		{"plain words", ""},
	}
	for _, c := range cases {
		id, ok := rs.find(c.text, strings.ToLower(c.text))
		if ok != (c.want != "") || id != c.want {
			t.Errorf("find(%q) = %q, %v; want %q", c.text, id, ok, c.want)
		}
	}
}

func TestRuleThatDoesNotCompile(t *testing.T) {
	rs, err := parseRules(`
[[rules]]
id = "broken"
regex = '''(?<=x)y'''
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.compileAll(); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("compileAll = %v, want an error naming the rule", err)
	}
	if id, ok := rs.find("xy", "xy"); ok {
		t.Errorf("a rule that does not compile found %s", id)
	}
}

func TestAssignedNear(t *testing.T) {
	cases := []struct {
		after string
		want  bool
	}{
		{` = "a1b2c3d4e5f6"`, true},
		{`_key: a1b2c3d4e5f6g7`, true},
		{`s every 90 days, prefer Go`, false},
		{` is kept in the keychain, never in notes`, false},
		{`: short`, false},
		{``, false},
	}
	for _, c := range cases {
		if got := assignedNear(c.after); got != c.want {
			t.Errorf("assignedNear(%q) = %v, want %v", c.after, got, c.want)
		}
	}
}

func TestCompact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"AKIA IOSF ODNN 7ABC DEFG", "AKIAIOSFODNN7ABCDEFG"},
		{"sk-proj- Xa9Kd0Lm 3Qw7Er5T", "sk-proj-Xa9Kd0Lm3Qw7Er5T"},
		{"AKIA-J3K6-QW2P", "AKIAJ3K6QW2P"},
		{"ghp_ 1a2B3c4D 5e6F", "ghp_1a2B3c4D5e6F"},
		{"xoxb- 1234 5678 - 9012", "xoxb-12345678-9012"},
		{"The user likes Go and tea.", "The user likes Go and tea."},
		{"meet Kim at 10:30 in room B-204", "meet Kim at 10:30 in room B204"},
		{"sk-learn is a library", "sk-learn is a library"},
	}
	for _, c := range cases {
		if got := compact(c.in); got != c.want {
			t.Errorf("compact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
