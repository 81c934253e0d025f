package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"engram/cmd/internal/version"
)

func TestVersionCommand(t *testing.T) {
	c := newCLI(t)
	if got, want := c.ok("version"), "engramctl "+version.Dev+"\n"; got != want {
		t.Errorf("engramctl version = %q, want %q", got, want)
	}
	if got := c.ok("--version"); got != "engramctl "+version.Dev+"\n" {
		t.Errorf("engramctl --version = %q", got)
	}
	if code, _, errs := c.run("", "version", "extra"); code != exitUsage || !strings.Contains(errs, "usage") {
		t.Errorf("engramctl version extra: exit %d, stderr %q; want usage", code, errs)
	}
}

// TestVersionLinkerFlag builds engramctl with the -X flag the Makefile passes
// and runs it: the flag's symbol name must match the version package.
func TestVersionLinkerFlag(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build engramctl")
	}
	bin := filepath.Join(t.TempDir(), "engramctl")
	build := exec.Command(goBin, "build", "-ldflags", "-X=engram/cmd/internal/version.version=9.8.7", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || string(out) != "engramctl 9.8.7\n" {
		t.Fatalf("engramctl version = %q, %v; want \"engramctl 9.8.7\\n\"", out, err)
	}
}
