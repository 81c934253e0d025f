package memory_test

import (
	"os"
	"path/filepath"
	"testing"

	"engram/memory"
)

// TestJournalPerFile: two memory files in one folder (memory.json and an
// export, or a legacy file next to the store) each have their own journal,
// so opening one never brings back the other's entries.
func TestJournalPerFile(t *testing.T) {
	t.Parallel()
	dir, state := t.TempDir(), t.TempDir()
	opts := memory.Options{StateDir: state, Now: newClock().Now}
	s := openStore(t, filepath.Join(dir, "memory.json"), opts)
	mustAdd(t, s, memory.Entry{Text: "The user writes Go."})
	mustAdd(t, s, memory.Entry{Text: "The user likes short answers."})
	other := openStore(t, filepath.Join(dir, "export.json"), opts)
	if got := other.List(); len(got) != 0 {
		t.Fatalf("export.json lists memory.json's entries: %q", entryTexts(got))
	}
	mustAdd(t, other, memory.Entry{Text: "Only in the export."})
	s.Close()
	s = openStore(t, filepath.Join(dir, "memory.json"), opts)
	if got := entryTexts(s.List()); len(got) != 2 {
		t.Fatalf("memory.json lists %q, want its own 2 entries", got)
	}
	journals, _ := filepath.Glob(filepath.Join(state, "journal", "*.jsonl"))
	if len(journals) != 2 {
		t.Fatalf("journals: %v, want one per file", journals)
	}
}

// TestJournalFolderKeyMigrated: a journal keyed by the folder (what older
// versions wrote) becomes the journal of the memory.json in that folder,
// so the changes it holds still come back when the file lost them.
func TestJournalFolderKeyMigrated(t *testing.T) {
	t.Parallel()
	dir, state := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "memory.json")
	opts := memory.Options{StateDir: state, Now: newClock().Now}
	s := openStore(t, path, opts)
	mustAdd(t, s, memory.Entry{Text: "The user writes Go."})
	s.Close()
	journals, _ := filepath.Glob(filepath.Join(state, "journal", "*.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("journals: %v", journals)
	}
	old := filepath.Join(state, "journal", memory.ProjectSlug(dir)+".jsonl")
	if journals[0] != old {
		if err := os.Rename(journals[0], old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path, opts)
	if got := entryTexts(s.List()); len(got) != 1 {
		t.Fatalf("after the migration: %q, want the journaled entry", got)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the folder-keyed journal is still there: %v", err)
	}
	// The export beside it does not take the migrated journal.
	if got := openStore(t, filepath.Join(dir, "export.json"), opts).List(); len(got) != 0 {
		t.Fatalf("export.json lists %q", entryTexts(got))
	}
}
