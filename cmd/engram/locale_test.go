package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestVersionUnderCLocale runs `engram --version` (this test binary, which
// holds the app's packages and their init) under the C locales that
// containers and minimal systems set: it prints the version and nothing
// on stderr, no "Fyne error: Error parsing user locale C".
func TestVersionUnderCLocale(t *testing.T) {
	if os.Getenv("ENGRAM_VERSION_CHILD") == "1" {
		if err := run(context.Background(), []string{"--version"}, os.Stdout); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, loc := range []string{"C.UTF-8", "C.utf8", "POSIX", "C"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestVersionUnderCLocale$")
		env := []string{"ENGRAM_VERSION_CHILD=1", "LANG=" + loc, "HOME=" + t.TempDir(),
			"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_DATA_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(),
			"XDG_CACHE_HOME=" + t.TempDir()}
		for _, kv := range os.Environ() {
			if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "GOCOVERDIR=") {
				env = append(env, kv)
			}
		}
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("LANG=%s: %v\n%s%s", loc, err, out, stderr.String())
		}
		if !strings.Contains(string(out), "engram ") {
			t.Errorf("LANG=%s: printed %q, want the version", loc, out)
		}
		if s := stderr.String(); s != "" {
			t.Errorf("LANG=%s: stderr %q, want nothing", loc, s)
		}
	}
}
