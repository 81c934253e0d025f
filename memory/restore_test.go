package memory_test

import (
	"os"
	"path/filepath"
	"testing"

	"engram/memory"
)

// TestStoreRestoredFileEndsUnparsable breaks the file, then puts back the
// very bytes it had: a watcher asks ChangedOnDisk first, as the agent does,
// and the store must leave its error state on the Reload that follows.
func TestStoreRestoredFileEndsUnparsable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	st := openStore(t, path, memory.Options{})
	mustAdd(t, st, memory.Entry{Kind: memory.KindFact, Text: "kept safe", Source: memory.SourceUser})
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"version": 1, "entries": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if !st.ChangedOnDisk() || st.Reload() == nil || st.Err() == nil {
		t.Fatal("the broken file was not noticed")
	}
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if !st.ChangedOnDisk() {
		t.Fatal("the restored file is not reported as a change while the store is in error")
	}
	if err := st.Reload(); err != nil || st.Err() != nil {
		t.Fatalf("after the restore Reload = %v, Err = %v", err, st.Err())
	}
	if st.ChangedOnDisk() {
		t.Error("once reloaded the restored file still reads as changed")
	}
	if got := st.List(); len(got) != 1 || got[0].Text != "kept safe" {
		t.Fatalf("entries after the restore: %+v", got)
	}
}
