package durable_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"engram/memory/durable"
)

func TestStampSeesReplaceNotReread(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	if err := durable.WriteFileAtomic(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	first, err := durable.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if again, err := durable.Stat(path); err != nil || again != first {
		t.Fatalf("a read changed the stamp: %+v, %v; was %+v", again, err, first)
	}
	if err := durable.WriteFileAtomic(path, []byte("two\n")); err != nil { // same size
		t.Fatal(err)
	}
	if now, err := durable.Stat(path); err != nil || now == first {
		t.Fatalf("an atomic replace kept the stamp %+v (%v)", now, err)
	}
	if _, err := durable.Stat(filepath.Join(t.TempDir(), "missing")); !os.IsNotExist(err) {
		t.Errorf("stat of a missing file: %v, want not-exist", err)
	}
}

func TestLockExcludesSecondOpen(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" && runtime.GOOS != "freebsd" {
		t.Skip("no lock between processes on " + runtime.GOOS)
	}
	path := filepath.Join(t.TempDir(), "memory.json.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := durable.Lock(a); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- durable.Lock(b) }()
	select {
	case err := <-got:
		t.Fatalf("second Lock returned (%v) while the first was held", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := durable.Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("second Lock after Unlock: %v", err)
	}
	if err := durable.Unlock(b); err != nil {
		t.Fatal(err)
	}
}
