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
