package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestMemoryAddSecretNeedsForce(t *testing.T) {
	c := newCLI(t)
	code, out, errs := c.run("", "memory", "add", "my", "AWS", "key", "is", "AKIAIOSFODNN7EXAMPLE")
	if code != exitError || out != "" || !strings.Contains(errs, "not saved: it looks like a secret (") ||
		!strings.Contains(errs, "--force") || strings.Contains(errs, "AKIAIOSFODNN7EXAMPLE") {
		t.Fatalf("add of a secret: code %d, out %q, err %q", code, out, errs)
	}
	if code, out, _ := c.run("", "memory", "list"); code != exitOK || out != "" {
		t.Fatalf("the secret was stored: %q", out)
	}
	code, out, errs = c.run("", "memory", "add", "--force", "wifi password: tulip77")
	if code != exitOK || strings.TrimSpace(out) == "" {
		t.Fatalf("add --force: code %d, out %q, err %q", code, out, errs)
	}
	id := strings.TrimSpace(out)
	if code, _, errs := c.run("", "memory", "edit", id, "--text", "wifi password: rose88"); code != exitError ||
		!strings.Contains(errs, "looks like a secret") {
		t.Errorf("edit to a secret without --force: code %d, err %q", code, errs)
	}
	if code, _, errs := c.run("", "memory", "edit", id, "--force", "--text", "wifi password: rose88"); code != exitOK {
		t.Errorf("edit --force: code %d, err %q", code, errs)
	}
	// The model's and distillation's sources are refused even with --force.
	if code, _, errs := c.run("", "memory", "add", "--force", "--source", "tool", "sk-proj-4fG7hJ2kL9mN3pQ8rS1tU6vW0xY5zA"); code != exitError ||
		!strings.Contains(errs, "looks like a secret") {
		t.Errorf("tool-source secret: code %d, err %q", code, errs)
	}
}

// Import checks every entry: those that look like secrets are listed by
// their place in the input, without their text, and left out; the rest are
// imported. An export (a file merged by ID) with a secret in it is imported
// entry by entry instead, so its secret stays out too. --force imports all.
func TestMemoryImportRefusesSecrets(t *testing.T) {
	secrets := []string{
		"the wifi password is Tulip-77-Garden",
		"my github token is ghp_Xa9Kd0Lm3Qw7Er5TyU1iO2pA4sD6fG8hJ0kL",
		"postgres://admin:S3cr3tPassw0rd@db.internal:5432/app",
	}
	jsonl := `{"text":"The user prefers tea over coffee."}` + "\n" +
		`{"text":"` + secrets[0] + `"}` + "\n" +
		`{"text":"The team deploys on Fridays."}` + "\n" +
		`{"text":"` + secrets[1] + `"}` + "\n" +
		`{"text":"` + secrets[2] + `"}` + "\n"
	c := newCLI(t)
	code, out, errs := c.run(jsonl, "memory", "import", "-")
	if code != exitError || out != "imported 2, duplicates 0, skipped 0, invalid 3\n" {
		t.Fatalf("import with secrets: code %d, out %q, err %q", code, out, errs)
	}
	for _, n := range []string{"entry 2:", "entry 4:", "entry 5:"} {
		if !strings.Contains(errs, n) || !strings.Contains(errs, "looks like a secret") {
			t.Errorf("refused entry %s not listed: %q", n, errs)
		}
	}
	for _, s := range secrets {
		if strings.Contains(errs, s) || strings.Contains(out, s) {
			t.Errorf("the secret %q is repeated in the output: %q", s, errs)
		}
	}
	list := c.ok("memory", "list")
	for _, s := range secrets {
		if strings.Contains(list, s) {
			t.Errorf("secret imported: %q", s)
		}
	}
	if !strings.Contains(list, "tea over coffee") || !strings.Contains(list, "deploys on Fridays") {
		t.Errorf("the ordinary entries were not imported: %q", list)
	}

	// An export of another store holding a secret, merged by ID.
	other := newCLI(t)
	other.ok("memory", "add", "The user's dog is called Rex.")
	other.ok("memory", "add", "--force", secrets[0])
	export := other.ok("memory", "export")
	fresh := newCLI(t)
	code, out, errs = fresh.run(export, "memory", "import", "-")
	if code != exitError || !strings.Contains(errs, "looks like a secret") || strings.Contains(errs, secrets[0]) {
		t.Fatalf("import of an export with a secret: code %d, out %q, err %q", code, out, errs)
	}
	if list := fresh.ok("memory", "list"); strings.Contains(list, secrets[0]) || !strings.Contains(list, "called Rex") {
		t.Errorf("after importing the export: %q", list)
	}

	code, out, errs = newCLI(t).run(jsonl, "memory", "import", "--force", "-")
	if code != exitOK || out != "imported 5, duplicates 0, skipped 0, invalid 0\n" {
		t.Errorf("import --force: code %d, out %q, err %q", code, out, errs)
	}
}

// TestCLISecretPaths runs every way of writing a secret in the memory
// package's shared cases through memory add, memory edit and memory
// import (JSON Lines), without --force: none is stored, and an ordinary
// memory on the same paths is. go test -v prints the table.
func TestCLISecretPaths(t *testing.T) {
	b, err := os.ReadFile("../../memory/testdata/secrets.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Categories []struct {
			Name  string   `json:"name"`
			Texts []string `json:"texts"`
		} `json:"categories"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	id := strings.TrimSpace(c.ok("memory", "add", "The user's router sits in the hallway cupboard."))
	var jsonl strings.Builder
	for _, cat := range cases.Categories {
		for _, s := range cat.Texts {
			c.run("", "memory", "add", s)
			c.run("", "memory", "edit", id, "--text", s)
			line, _ := json.Marshal(map[string]string{"text": s})
			jsonl.Write(append(line, '\n'))
		}
	}
	c.run(jsonl.String(), "memory", "import", "-")
	var listed []struct{ Text string }
	if err := json.Unmarshal([]byte(c.ok("memory", "list", "--all", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, e := range listed {
		kept[e.Text] = true
	}
	for _, cat := range cases.Categories {
		stored := 0
		for _, s := range cat.Texts {
			if kept[s] {
				stored++
				t.Errorf("%s: %q was stored", cat.Name, s)
			}
		}
		t.Logf("%-36s add, edit, import: %d of %d stored", cat.Name, stored, 3*len(cat.Texts))
	}
	const ordinary = "The user's favourite number is 4821."
	c.ok("memory", "add", ordinary)
	c.ok("memory", "edit", id, "--text", "The user's router sits in the study.")
	c.run(`{"text":"The user waters the plants on Sundays."}`+"\n", "memory", "import", "-")
	list := c.ok("memory", "list")
	for _, s := range []string{ordinary, "router sits in the study", "waters the plants"} {
		if !strings.Contains(list, s) {
			t.Errorf("the ordinary %q was not stored:\n%s", s, list)
		}
	}
}
