package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file changed in place between the store's read and its rename (an
// editor's save landing at that moment) is merged again, never
// overwritten.
func TestWriteMergesAFileChangedUnderIt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	s, err := Open(path, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.Add(Entry{Text: "written by the store"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"entries": [`, `"entries": [{"id": "byhand", "text": "typed in the editor"},`, 1)
	if edited == string(data) {
		t.Fatalf("unexpected file shape:\n%s", data)
	}

	s.beginWrite()
	unlock, err := s.lockFiles()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.syncLocked(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil { // in place, after the read
		t.Fatal(err)
	}
	err = s.writeLocked()
	unlock()
	s.endWrite()
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !strings.Contains(string(after), "typed in the editor") || !strings.Contains(string(after), "written by the store") {
		t.Errorf("the file written over the editor's save:\n%s", after)
	}
}
