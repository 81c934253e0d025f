package durable_test

import (
	"errors"
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

// A write whose ready check fails leaves the file as it was and no
// temporary file behind.
func TestWriteFileAtomicIfNotReady(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.json")
	if err := os.WriteFile(path, []byte("before"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("changed")
	if err := durable.WriteFileAtomicIf(path, []byte("after"), func() error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("WriteFileAtomicIf: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "before" {
		t.Errorf("the file was replaced: %q", got)
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Errorf("left behind: %v", des)
	}
}
