package memory_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

// TestTrashExpiresAndEmpties: the trash file is private, drops what was
// removed longer ago than the tombstones are kept (on the next Open, as
// on a change), and EmptyTrash empties it for good; Restore of what is no
// longer there fails.
func TestTrashExpiresAndEmpties(t *testing.T) {
	t.Parallel()
	clk := newClock()
	root := t.TempDir()
	path := filepath.Join(root, "memory.json")
	opts := memory.Options{Now: clk.Now, StateDir: filepath.Join(root, "state")}
	s := openStore(t, path, opts)
	old := mustAdd(t, s, memory.Entry{Text: "The user's old bike is red."})
	newer := mustAdd(t, s, memory.Entry{Text: "The user's new bike is green."})
	if err := s.Remove(old.ID); err != nil {
		t.Fatal(err)
	}
	clk.Advance(20 * 24 * time.Hour)
	if err := s.Remove(newer.ID); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "state", "trash", "*"))
	if len(files) != 1 {
		t.Fatalf("trash files %q", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trash file mode: %v, %v", fi.Mode(), err)
	}
	items, err := s.Trash()
	if err != nil || len(items) != 2 || items[0].ID != newer.ID || items[1].ID != old.ID {
		t.Fatalf("Trash() = %+v, %v; want the newer removal first", items, err)
	}
	s.Close()

	clk.Advance(11 * 24 * time.Hour) // the first removal is 31 days old
	s = openStore(t, path, opts)
	if data, _ := os.ReadFile(files[0]); strings.Contains(string(data), "red") {
		t.Errorf("Open left an expired entry in the trash:\n%s", data)
	}
	if err := s.Restore(old.ID); !errors.Is(err, memory.ErrForgotten) && !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Restore of an expired entry: %v", err)
	}
	if n, err := s.EmptyTrash(); n != 1 || err != nil {
		t.Errorf("EmptyTrash() = %d, %v", n, err)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("the emptied trash is still a file: %v", err)
	}
	if err := s.Restore(newer.ID); !errors.Is(err, memory.ErrForgotten) {
		t.Errorf("Restore after EmptyTrash: %v", err)
	}
}

// TestTrashInMemory: a store without a StateDir keeps its trash for its
// own life: Restore works from it, and the file never holds the text.
func TestTrashInMemory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	a := mustAdd(t, s, memory.Entry{Text: "The user's locker is number 42."})
	if err := s.Remove(a.ID); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "locker") {
		t.Errorf("the file holds the removed text:\n%s", data)
	}
	if items, err := s.Trash(); err != nil || len(items) != 1 || items[0].Text != a.Text {
		t.Fatalf("Trash() = %+v, %v", items, err)
	}
	if err := s.Restore(a.ID); err != nil {
		t.Fatal(err)
	}
	if got := entryTexts(s.List()); !slices.Equal(got, []string{a.Text}) {
		t.Errorf("after Restore: %q", got)
	}
	other := openStore(t, path, memory.Options{})
	if got := entryTexts(other.List()); !slices.Equal(got, []string{a.Text}) {
		t.Errorf("another store reads %q", got)
	}
}

// TestRestoreOutranksTheTombstoneOnAnotherDevice: a memory removed on one
// device and restored there comes back on a device that saw the removal.
func TestRestoreOutranksTheTombstoneOnAnotherDevice(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "memory.json")
	a := openStore(t, path, memory.Options{StateDir: filepath.Join(root, "a")})
	b := openStore(t, path, memory.Options{StateDir: filepath.Join(root, "b")})
	e := mustAdd(t, a, memory.Entry{Text: "The user's cat is called Miso."})
	if err := a.Remove(e.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Get(e.ID); got.Live() {
		t.Fatalf("b did not see the removal: %+v", got)
	}
	if err := a.Restore(e.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Get(e.ID); !got.Live() || got.Text != e.Text {
		t.Errorf("b after the restore: %+v", got)
	}
}

// TestForgetSecretsSweeps: every entry that looks like a secret goes, with
// its history and from the trash, and ordinary ones stay.
func TestForgetSecretsSweeps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "memory.json")
	s := openStore(t, path, memory.Options{StateDir: filepath.Join(root, "state")})
	keep := mustAdd(t, s, memory.Entry{Text: "My password manager is Bitwarden."})
	wifi := mustAdd(t, s, memory.Entry{Text: "The wifi password is hunter2-orchid-77."})
	old := mustAdd(t, s, memory.Entry{Text: "The router PIN is 493817."})
	cur, err := s.Supersede(old.ID, memory.Entry{Text: "The router sits in the hall closet."})
	if err != nil {
		t.Fatal(err)
	}
	removed := mustAdd(t, s, memory.Entry{Text: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
	if err := s.Remove(removed.ID); err != nil {
		t.Fatal(err)
	}
	gone, err := s.ForgetSecrets()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range gone {
		ids = append(ids, g.ID)
	}
	slices.Sort(ids)
	want := []string{wifi.ID, old.ID, removed.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("forgot %q, want %q", ids, want)
	}
	if got := entryTexts(s.List()); !slices.Equal(got, []string{keep.Text, cur.Text}) {
		t.Errorf("live after the sweep: %q", got)
	}
	for _, word := range []string{"hunter2", "493817", "wJalrXUtnFEMI"} {
		if got := holders(t, root, word); len(got) != 0 {
			t.Errorf("%q is still in %q", word, got)
		}
	}
}

// TestPurgeKeepsOtherJournalLines: the purge drops the forgotten records
// and leaves every other line of the journal as it was, one it does not
// understand included.
func TestPurgeKeepsOtherJournalLines(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "memory.json")
	opts := memory.Options{StateDir: filepath.Join(root, "state")}
	s := openStore(t, path, opts)
	a := mustAdd(t, s, memory.Entry{Text: "The user's bike lock code is 3141."})
	b := mustAdd(t, s, memory.Entry{Text: "The user rides to work on Mondays."})
	jf, _ := filepath.Glob(filepath.Join(root, "state", "journal", "*.jsonl"))
	if len(jf) != 1 {
		t.Fatalf("journals %q", jf)
	}
	data, err := os.ReadFile(jf[0])
	if err != nil {
		t.Fatal(err)
	}
	odd := `{"header": "a line of a later version"}` + "\n"
	if err := os.WriteFile(jf[0], append([]byte(odd), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(a.ID); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(jf[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), odd) || strings.Contains(string(after), "3141") || !strings.Contains(string(after), b.Text) {
		t.Errorf("journal after the purge:\n%s", after)
	}
	s.Close()
	os.Remove(path)
	s = openStore(t, path, opts)
	if got := entryTexts(s.List()); !slices.Equal(got, []string{b.Text}) {
		t.Errorf("the journal brings back %q", got)
	}
}

// TestTrashDropsWhatAnotherDeviceForgot: a memory removed here and, at the
// same time, forgotten on another device whose deletion wins the merge
// leaves this device's trash, so Restore cannot bring it back.
func TestTrashDropsWhatAnotherDeviceForgot(t *testing.T) {
	t.Parallel()
	clk := newClock()
	root := t.TempDir()
	pathA := filepath.Join(root, "a", "memory.json")
	pathB := filepath.Join(root, "b", "memory.json")
	a := openStore(t, pathA, memory.Options{Now: clk.Now, StateDir: filepath.Join(root, "state-a")})
	x := mustAdd(t, a, memory.Entry{Text: flowerpot})
	data, err := os.ReadFile(pathA)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(pathB), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pathB, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b := openStore(t, pathB, memory.Options{Now: clk.Now, StateDir: filepath.Join(root, "state-b")})
	clk.Advance(time.Minute)
	if err := a.Remove(x.ID); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	if _, err := b.Forget(x.ID); err != nil {
		t.Fatal(err)
	}
	fromB, err := os.ReadFile(pathB)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "memory.sync-conflict-20261201-101010-BBBBBBB.json"), fromB, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.Reload(); err != nil {
		t.Fatal(err)
	}
	if items, err := a.Trash(); err != nil || len(items) != 0 {
		t.Errorf("a's trash after b's forget won: %+v, %v", items, err)
	}
	if err := a.Restore(x.ID); !errors.Is(err, memory.ErrForgotten) {
		t.Errorf("Restore on a after b's forget: %v", err)
	}
	if got := holders(t, root, "flowerpot"); len(got) != 0 {
		t.Errorf("the text is still in %q", got)
	}
}

// TestRemoveAll removes what is not deleted yet with one write, and says
// which; all of them are in the trash and come back one by one.
func TestRemoveAll(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "memory.json")
	s := openStore(t, path, memory.Options{StateDir: filepath.Join(root, "state")})
	a := mustAdd(t, s, memory.Entry{Text: "The user's first bike was blue."})
	b := mustAdd(t, s, memory.Entry{Text: "The user's second bike was a tandem."})
	c := mustAdd(t, s, memory.Entry{Text: "The user's third bike is electric."})
	if err := s.Remove(c.ID); err != nil {
		t.Fatal(err)
	}
	removed, err := s.RemoveAll([]string{a.ID, "nosuchid00", c.ID, b.ID})
	if err != nil || !slices.Equal(removed, []string{a.ID, b.ID}) {
		t.Fatalf("RemoveAll = %q, %v; want %s and %s", removed, err, a.ID, b.ID)
	}
	if items, err := s.Trash(); err != nil || len(items) != 3 {
		t.Fatalf("Trash() = %+v, %v", items, err)
	}
	if got := holders(t, root, "bike"); !matchPrefixes(got, []string{"state/trash/"}) {
		t.Errorf("the texts are in %q, want the trash only", got)
	}
	for _, id := range []string{a.ID, b.ID, c.ID} {
		if err := s.Restore(id); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != 3 {
		t.Errorf("%d live after restoring all", s.Len())
	}
}
