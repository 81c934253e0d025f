package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMemoryAddFileNotWritten: when memory.json cannot be written, `memory
// add` exits non-zero and says the memory is in the journal only; the next
// command lists it all the same. The folder is made read-only, or (as root,
// whom a mode does not stop) so deep that the temporary file beside
// memory.json gets a name longer than the system takes.
func TestMemoryAddFileNotWritten(t *testing.T) {
	for name, block := range map[string]func(t *testing.T, dir string) string{
		"read-only folder": func(t *testing.T, dir string) string {
			if runtime.GOOS == "windows" || os.Geteuid() == 0 {
				t.Skip("a folder's mode does not stop this user")
			}
			return filepath.Join(dir, "memory.json")
		},
		"temporary file name too long": func(t *testing.T, dir string) string {
			if runtime.GOOS != "linux" {
				t.Skip("relies on Linux's PATH_MAX of 4096")
			}
			// memory.json.lock fits in 4095 bytes, .memory.json.tmp-<pid>-<n> does not.
			for len(dir) < 4075-200 {
				dir = filepath.Join(dir, strings.Repeat("d", 199))
			}
			dir = filepath.Join(dir, strings.Repeat("e", 4075-len(dir)-1))
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "memory.json")
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			path := block(t, t.TempDir())
			c.ok("memory", "list", "--store", path) // creates the folder and the lock file
			if name == "read-only folder" {
				if err := os.Chmod(filepath.Dir(path), 0o500); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o700) })
			}
			code, _, errs := c.run("", "memory", "add", "--store", path, "The user likes short answers.")
			if code == exitOK || !strings.Contains(errs, "journal only") {
				t.Fatalf("add with memory.json not writable: exit %d, stderr %.300q; want a failure that says it is in the journal only", code, errs)
			}
			if out := c.ok("memory", "list", "--store", path); !strings.Contains(out, "short answers") {
				t.Fatalf("the journaled memory is not listed:\n%s", out)
			}
		})
	}
}
