package durable_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"engram/memory/durable"
)

// deadPID starts and reaps a short process and returns its ID, which no
// live process has (unless reused in the meantime, which the test cannot
// prevent but which is vanishingly rare).
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestRemoveStaleTempsSparesLiveWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.json")
	live := exec.Command(os.Args[0], "-test.run=^TestSleepHelper$")
	live.Env = append(os.Environ(), "DURABLE_TEST_SLEEP=1")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { live.Process.Kill(); live.Wait() })
	names := map[string]bool{ // name: want removed
		".memory.json.tmp-" + strconv.Itoa(live.Process.Pid) + "-123": false, // another live writer's
		".memory.json.tmp-" + strconv.Itoa(os.Getpid()) + "-456":      false, // this process's
		".memory.json.tmp-" + strconv.Itoa(deadPID(t)) + "-789":       true,  // a writer that died
		".memory.json.tmp-123456789":                                  true,  // older versions' names
		".chat.json.tmp-1-2":                                          false, // another file's
		"memory.json":                                                 false,
	}
	for n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := ".memory.json.tmp-" + strconv.Itoa(live.Process.Pid) + "-999" // live, but an hour old: a reused ID
	os.WriteFile(filepath.Join(dir, old), nil, 0o600)
	hourAgo := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(dir, old), hourAgo, hourAgo)
	names[old] = true
	durable.RemoveStaleTemps(path)
	for n, gone := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if gone != errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: removed %v, want %v", n, !gone, gone)
		}
	}
}

// TestSleepHelper is not a test: it is a live process for
// TestRemoveStaleTempsSparesLiveWriters.
func TestSleepHelper(t *testing.T) {
	if os.Getenv("DURABLE_TEST_SLEEP") == "" {
		t.Skip("helper process")
	}
	time.Sleep(time.Minute)
}

func TestWriteFileAtomicLeavesReadOnlyFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits are not Windows' read-only attribute")
	}
	path := filepath.Join(t.TempDir(), "memory.json")
	if err := os.WriteFile(path, []byte("mine\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	err := durable.WriteFileAtomic(path, []byte("replaced\n"))
	if !errors.Is(err, durable.ErrReadOnly) {
		t.Fatalf("write over a 0400 file: %v, want ErrReadOnly", err)
	}
	got, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(got) != "mine\n" || fi.Mode().Perm() != 0o400 {
		t.Errorf("read-only file changed: %q, mode %v", got, fi.Mode().Perm())
	}
}

func TestLockerFollowsReplacedLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json.lock")
	a, err := durable.OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := os.Remove(path); err != nil { // a person tidying the folder
		t.Fatal(err)
	}
	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("Lock did not recreate the deleted lock file: %v", err)
	}
	b, err := durable.OpenLock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := make(chan error, 1)
	go func() { got <- b.Lock() }()
	select {
	case err := <-got:
		t.Fatalf("a second Locker took the lock (%v) while the first held the recreated file", err)
	case <-time.After(100 * time.Millisecond):
	}
	a.Unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	b.Unlock()
}
