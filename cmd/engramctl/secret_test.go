package main

import (
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
