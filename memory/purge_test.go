package memory_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"engram/memory"
)

// flowerpot is the memory every copy of which the tests look for.
const flowerpot = "The spare house key is under the blue flowerpot."

// holders lists the files under root (relative, slash-separated) that
// hold word.
func holders(t *testing.T, root, word string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), word) {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// keptFiles sets up a store that has copies of flowerpot in every kind
// of file it keeps: memory.json, the legacy copy of an upgrade, the
// journal (a pin), a merged conflict copy and a broken file Repair set
// aside in the backups. It returns the root of the folders, the store's
// path, its options, the entry's ID and a copy of memory.json holding it.
func keptFiles(t *testing.T) (root, path string, opts memory.Options, id string, older []byte) {
	t.Helper()
	root = t.TempDir()
	path = filepath.Join(root, "config", "engram", "memory.json")
	opts = memory.Options{StateDir: filepath.Join(root, "state", "engram")}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	legacy := `{"entries": [{"kind": "fact", "text": "` + flowerpot + `", "ts": "2026-11-01T10:00:00Z"},
		{"kind": "fact", "text": "The user swims on Tuesdays.", "ts": "2026-11-01T10:00:00Z"}]}`
	if err := os.WriteFile(path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path, opts)
	i := slices.IndexFunc(s.List(), func(e memory.Entry) bool { return e.Text == flowerpot })
	if i < 0 {
		t.Fatalf("the legacy file's memory is not in the store: %+v", s.List())
	}
	id = s.List()[i].ID
	pin := true
	if _, err := s.Update(id, memory.Change{Pinned: &pin}); err != nil {
		t.Fatal(err)
	}
	older, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	conflict := filepath.Join(filepath.Dir(path), "memory.sync-conflict-20261201-101010-ABCDEFG.json")
	if err := os.WriteFile(conflict, older, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(older), `"entries"`, `"entries" [[`, 1)
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Reload()
	if _, err := s.Repair(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	want := []string{
		"config/engram/memory.json",
		"config/engram/memory.json.legacy-",
		"state/engram/backups/memory.json.broken-",
		"state/engram/backups/memory.sync-conflict-20261201-101010-ABCDEFG.json",
		"state/engram/journal/",
	}
	if got := holders(t, root, "flowerpot"); !matchPrefixes(got, want) {
		t.Fatalf("before the test the text is in %q, want one of each of %q", got, want)
	}
	return root, path, opts, id, older
}

// matchPrefixes reports whether got has one name for each prefix of want,
// in order, and nothing else.
func matchPrefixes(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// putBack replaces the store's file with an older copy, as a sync tool or
// a restored backup would.
func putBack(t *testing.T, path string, older []byte) {
	t.Helper()
	if err := os.WriteFile(path, older, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveLeavesTheTextInTheTrashOnly: after Remove the text is in the
// trash and nowhere else, also once the copy of memory.json taken before
// comes back (Reload, and a fresh Open); Restore brings it back from the
// trash.
func TestRemoveLeavesTheTextInTheTrashOnly(t *testing.T) {
	t.Parallel()
	root, path, opts, id, older := keptFiles(t)
	s := openStore(t, path, opts)
	if err := s.Remove(id); err != nil {
		t.Fatal(err)
	}
	trash := []string{"state/engram/trash/"}
	check := func(when string) {
		t.Helper()
		if got := holders(t, root, "flowerpot"); !matchPrefixes(got, trash) {
			t.Errorf("%s the text is in %q, want the trash only", when, got)
		}
		if e, ok := s.Get(id); !ok || e.Live() || e.Text != "" {
			t.Errorf("%s the store holds %+v, want a bare tombstone", when, e)
		}
	}
	check("after rm")
	putBack(t, path, older)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	check("after the older copy came back and a Reload,")
	s.Close()
	putBack(t, path, older)
	s = openStore(t, path, opts)
	check("after the older copy came back and an Open,")

	items, err := s.Trash()
	if err != nil || len(items) != 1 || items[0].ID != id || items[0].Text != flowerpot || items[0].Removed.IsZero() {
		t.Fatalf("Trash() = %+v, %v", items, err)
	}
	if err := s.Restore(id); err != nil {
		t.Fatal(err)
	}
	if e, ok := s.Get(id); !ok || !e.Live() || e.Text != flowerpot || !e.Pinned {
		t.Errorf("restored: %+v", e)
	}
	if items, err := s.Trash(); err != nil || len(items) != 0 {
		t.Errorf("the trash after Restore: %+v, %v", items, err)
	}
	putBack(t, path, older)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Get(id); !e.Live() || e.Text != flowerpot {
		t.Errorf("the restored memory after the older copy came back: %+v", e)
	}
}

// TestForgetLeavesTheTextNowhere: after Forget no file holds the text,
// also once the copy of memory.json taken before comes back (Reload, and
// a fresh Open), and the forgotten memory stays forgotten.
func TestForgetLeavesTheTextNowhere(t *testing.T) {
	t.Parallel()
	for _, removed := range []bool{false, true} {
		root, path, opts, id, older := keptFiles(t)
		s := openStore(t, path, opts)
		if removed {
			if err := s.Remove(id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Forget(id); err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
			if got := holders(t, root, "flowerpot"); len(got) != 0 {
				t.Errorf("removed first %v: %s the text is in %q, want nowhere", removed, when, got)
			}
			if e, ok := s.Get(id); !ok || e.Live() || e.Text != "" {
				t.Errorf("removed first %v: %s the store holds %+v, want a bare tombstone", removed, when, e)
			}
		}
		check("after forget")
		putBack(t, path, older)
		if err := s.Reload(); err != nil {
			t.Fatal(err)
		}
		check("after the older copy came back and a Reload,")
		s.Close()
		putBack(t, path, older)
		s = openStore(t, path, opts)
		check("after the older copy came back and an Open,")
		if err := s.Restore(id); err == nil {
			t.Errorf("removed first %v: Restore of a forgotten memory worked", removed)
		}
		if got := entryTexts(s.List()); !slices.Equal(got, []string{"The user swims on Tuesdays."}) {
			t.Errorf("removed first %v: live %q", removed, got)
		}
	}
}

// TestForgetRemovesABackupItCannotScrub: a backup that writes the text in
// a way the purge cannot replace in place (escapes of its own) is
// removed; one it can is scrubbed and kept.
func TestForgetRemovesABackupItCannotScrub(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "memory.json")
	opts := memory.Options{StateDir: filepath.Join(root, "state")}
	s := openStore(t, path, opts)
	e := mustAdd(t, s, memory.Entry{Text: flowerpot})
	keep := mustAdd(t, s, memory.Entry{Text: "The user swims on Tuesdays."})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	backups := filepath.Join(root, "state", "backups")
	if err := os.MkdirAll(backups, 0o700); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(backups, "memory.json.broken-20261201T101010Z")
	odd := filepath.Join(backups, "memory (conflicted copy 2026-12-01).json")
	if err := os.WriteFile(plain, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(odd, []byte(strings.Replace(string(data), "flowerpot", `\u0066lowerpot`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(odd); !os.IsNotExist(err) {
		t.Errorf("the backup with the escaped text is still there: %v", err)
	}
	b, err := os.ReadFile(plain)
	if err != nil || strings.Contains(string(b), "flowerpot") || !strings.Contains(string(b), keep.Text) {
		t.Errorf("the scrubbed backup: %v\n%s", err, b)
	}
}
