package durable_test

import (
	"os"
	"path/filepath"
	"testing"

	"engram/memory/durable"
)

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "not", "yet")
	path := filepath.Join(dir, "chat.json")
	for _, content := range []string{"first\n", "second, longer than the first\n"} {
		if err := durable.WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read back %q, %v; want %q", got, err, content)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, %v; want 0700", fi.Mode().Perm(), err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("temporary files left behind: %v", names)
	}
	if err := durable.WriteFileAtomic(filepath.Join(path, "under-a-file"), nil); err == nil {
		t.Error("writing under a regular file succeeded")
	}
}
