package memory

import (
	"path/filepath"
	"testing"
	"time"
)

// TestReadsDoNotWaitForWriter: while a write waits for a lock held by
// another store on the same file, the reads are served at once from what
// was last published, and the write lands when the lock is released.
func TestReadsDoNotWaitForWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.Add(Entry{Text: "the staging database listens on port 5433"}); err != nil {
		t.Fatal(err)
	}
	other, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	unlock, err := other.lockFiles()
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() {
		_, _, err := s.Add(Entry{Text: "the build cache lives in /var/cache/build"})
		wrote <- err
	}()
	time.Sleep(20 * time.Millisecond) // the write is waiting for the lock
	read := make(chan int, 1)
	go func() {
		n := len(s.List()) + s.Len() + len(s.Recall("staging database port", nil, RecallOptions{}))
		if _, ok := s.Get("x"); ok || s.Err() != nil {
			n = -1
		}
		read <- n
	}()
	select {
	case n := <-read:
		if n != 3 {
			t.Errorf("List, Len and Recall during the write: %d results in all, want 1 each", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reads waited for the write that waits for the lock")
	}
	select {
	case err := <-wrote:
		t.Fatalf("the write went through a held lock (err %v)", err)
	default:
	}
	unlock()
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 {
		t.Errorf("after the write: %d entries, want 2", s.Len())
	}
}
