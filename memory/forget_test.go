package memory_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/memory"
)

func TestForgetRemovesTextAtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	old := mustAdd(t, s, memory.Entry{Text: "The user's locker code is zulu-kilo."})
	cur, err := s.Supersede(old.ID, memory.Entry{Text: "The user's locker code is yankee-victor."})
	if err != nil {
		t.Fatal(err)
	}
	keep := mustAdd(t, s, memory.Entry{Text: "The user swims on Tuesdays."})

	// Another process has the file open with the memory still live.
	other := openStore(t, path, memory.Options{})

	got, err := s.Forget(cur.ID)
	if err != nil || got.Text != cur.Text {
		t.Fatalf("Forget = %+v, %v", got, err)
	}
	if _, err := s.Forget(cur.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("second Forget: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"zulu-kilo", "yankee-victor", "locker"} {
		if strings.Contains(string(data), text) {
			t.Errorf("the file still holds %q:\n%s", text, data)
		}
	}
	doc := readDoc(t, path)
	if len(doc.Entries) != 3 {
		t.Fatalf("file entries = %+v, want two tombstones and the kept memory", doc.Entries)
	}
	for _, e := range doc.Entries {
		if e.ID != keep.ID && (e.Deleted.IsZero() || e.Text != "") {
			t.Errorf("not a bare tombstone: %+v", e)
		}
	}
	if err := s.Restore(cur.ID); !errors.Is(err, memory.ErrForgotten) {
		t.Errorf("Restore of a forgotten memory: %v", err)
	}
	// The tombstones survive a reload and win over the other copy.
	if err := other.Reload(); err != nil {
		t.Fatal(err)
	}
	if live := entryTexts(other.List()); len(live) != 1 || live[0] != keep.Text {
		t.Errorf("the other process still has %q", live)
	}
	if err := other.MarkUsed(keep.ID); err != nil { // the other process writes
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "locker") {
		t.Errorf("the other process wrote the text back:\n%s", data)
	}
}
