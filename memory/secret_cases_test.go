package memory_test

import (
	"encoding/json"
	"os"
	"testing"

	"engram/memory"
)

// secretCases are the ways people write secrets (issue 22), each with
// texts written that way, all of which must be refused, and ordinary
// memories that merely mention such words, which must be kept. They live
// in testdata/secrets.json so that the tests of every path a memory takes
// into a store (agent, engramctl) use the same texts.
type secretCases struct {
	Categories []struct {
		Name  string   `json:"name"`
		Texts []string `json:"texts"`
	} `json:"categories"`
	Ordinary []string `json:"ordinary"`
}

func loadSecretCases(t testing.TB) secretCases {
	t.Helper()
	b, err := os.ReadFile("testdata/secrets.json")
	if err != nil {
		t.Fatal(err)
	}
	var c secretCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSecretCategories checks every way of writing a secret of issue 22 and
// the ordinary memories that must stay allowed; go test -v prints the table.
func TestSecretCategories(t *testing.T) {
	cases := loadSecretCases(t)
	for _, c := range cases.Categories {
		flagged := 0
		for _, s := range c.Texts {
			if _, ok := memory.Secret(s); ok {
				flagged++
			} else {
				t.Errorf("%s: Secret(%q) = false, want a secret", c.Name, s)
			}
		}
		t.Logf("%-36s attempts %2d flagged %2d", c.Name, len(c.Texts), flagged)
	}
	allowed := 0
	for _, s := range cases.Ordinary {
		if what, ok := memory.Secret(s); ok {
			t.Errorf("Secret(%q) = %s, want none", s, what)
		} else {
			allowed++
		}
	}
	t.Logf("%-36s texts %2d allowed %2d", "ordinary memories", len(cases.Ordinary), allowed)
}
