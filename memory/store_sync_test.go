package memory_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/memory"
	"engram/memory/durable"
)

// device is one machine of a sync test: its own folder with memory.json
// (which a sync tool replaces) and its own XDG state tree.
type device struct {
	t     *testing.T
	path  string
	state string
	clk   *testClock
	s     *memory.Store
}

func newDevice(t *testing.T, clk *testClock) *device {
	d := &device{t: t, path: filepath.Join(t.TempDir(), "memory.json"), state: t.TempDir(), clk: clk}
	d.open()
	return d
}

// open (re)opens the device's store, as a new process does.
func (d *device) open() {
	d.t.Helper()
	if d.s != nil {
		d.s.Close()
	}
	d.s = openStore(d.t, d.path, memory.Options{StateDir: d.state, Now: d.clk.Now})
}

func (d *device) add(text string) memory.Entry {
	d.t.Helper()
	d.clk.Advance(time.Second)
	return mustAdd(d.t, d.s, memory.Entry{Text: text})
}

// receive replaces the device's file with the other's, as a sync tool
// does: a new file renamed over it, with the other's modification time an
// hour ahead (a clock that is wrong).
func (d *device) receive(from *device) {
	d.t.Helper()
	data, err := os.ReadFile(from.path)
	if err != nil {
		d.t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(d.path), ".syncthing.memory.json.tmp")
	os.WriteFile(tmp, data, 0o600)
	ahead := time.Now().Add(time.Hour)
	os.Chtimes(tmp, ahead, ahead)
	if err := os.Rename(tmp, d.path); err != nil {
		d.t.Fatal(err)
	}
}

// conflictCopy writes the other's file beside the device's under name.
func (d *device) conflictCopy(from *device, name string) {
	d.t.Helper()
	data, err := os.ReadFile(from.path)
	if err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(d.path), name), data, 0o600); err != nil {
		d.t.Fatal(err)
	}
}

func (d *device) reload() {
	d.t.Helper()
	if err := d.s.Reload(); err != nil {
		d.t.Fatal(err)
	}
}

func (d *device) texts() []string {
	out := entryTexts(d.s.List())
	slices.Sort(out)
	return out
}

func sortedTexts(ts ...string) []string {
	slices.Sort(ts)
	return ts
}

// Two devices editing offline and syncing by replacing each other's files
// lose nothing, bring nothing deleted back, and resolve a concurrent edit
// the same way on both sides, the losing text kept as history.
func TestSyncTwoDevicesByReplacement(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := newDevice(t, clk), newDevice(t, clk)
	a1, a2, a3 := a.add("a1 the build uses make"), a.add("a2 deploys go out on Fridays"), a.add("a3 the cat is called Miso")
	b.receive(a)
	b.reload()
	if got := b.texts(); len(got) != 3 {
		t.Fatalf("B after the first sync: %q", got)
	}
	stale, _ := os.ReadFile(a.path)

	// Offline on both.
	a4 := a.add("a4 added on A offline")
	if err := a.s.Remove(a1.ID); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if _, err := a.s.Update(a2.ID, memory.Change{Text: ptrTo("a2 deploys go out on Thursdays (A)")}); err != nil {
		t.Fatal(err)
	}
	b1 := b.add("b1 added on B offline")
	clk.Advance(time.Second)
	if _, err := b.s.Update(a2.ID, memory.Change{Text: ptrTo("a2 deploys go out on Mondays (B)")}); err != nil {
		t.Fatal(err)
	}
	if err := b.s.Remove(a3.ID); err != nil {
		t.Fatal(err)
	}

	b.receive(a) // A's copy lacks b1 and B's deletion of a3
	b.reload()
	a.receive(b) // B's merged copy
	a.reload()
	want := sortedTexts(a4.Text, b1.Text, "a2 deploys go out on Mondays (B)")
	for name, d := range map[string]*device{"A": a, "B": b} {
		if got := d.texts(); !slices.Equal(got, want) {
			t.Errorf("%s lists %q, want %q", name, got, want)
		}
		hist := entryTexts(d.s.History(a2.ID))
		if !slices.Equal(hist, []string{"a2 deploys go out on Fridays", "a2 deploys go out on Thursdays (A)",
			"a2 deploys go out on Mondays (B)"}) {
			t.Errorf("%s: history of a2 %q", name, hist)
		}
	}
	// Each side reopened from its file and journal (new processes) agrees.
	a.open()
	b.open()
	if !slices.Equal(a.texts(), want) || !slices.Equal(b.texts(), want) {
		t.Errorf("reopened: A %q, B %q", a.texts(), b.texts())
	}
	// A stale copy from before the deletions brings nothing back.
	os.WriteFile(a.path, stale, 0o600)
	a.reload()
	if got := a.texts(); !slices.Equal(got, want) {
		t.Errorf("after a stale copy: %q, want %q", got, want)
	}
}

// Conflict copies that sync tools write beside the file are merged on
// open and on reload, moved to the backups folder, and counted.
func TestSyncConflictCopiesMerged(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := newDevice(t, clk), newDevice(t, clk)
	shared := a.add("shared from A")
	b.receive(a)
	b.reload()
	a.add("A offline")
	b.add("B offline one")
	b.add("B offline two")
	if err := b.s.Remove(shared.ID); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"memory.sync-conflict-20261201-101010-ABCDEFG.json",
		"memory (conflicted copy 2026-12-01).json",
		"memory (Sam's conflicted copy 2026-12-01).json",
		"memory (conflicted copy 2026-12-01 101010).json",
		"memory_conflict-20261201-101010.json",
	} {
		if !memory.IsConflictCopy("memory.json", name) {
			t.Errorf("%q is not taken for a conflict copy", name)
		}
	}
	for _, name := range []string{"memory.json", "memory.json.lock", "memory.json.legacy-20260101T000000Z", "other.sync-conflict-20261201-101010-ABCDEFG.json"} {
		if memory.IsConflictCopy("memory.json", name) {
			t.Errorf("%q is taken for a conflict copy", name)
		}
	}
	a.conflictCopy(b, "memory.sync-conflict-20261201-101010-ABCDEFG.json")
	a.open() // on open
	want := sortedTexts("A offline", "B offline one", "B offline two")
	if got := a.texts(); !slices.Equal(got, want) {
		t.Errorf("after merging the conflict copy on open: %q, want %q", got, want)
	}
	rep := a.s.TakeMergeReport()
	if rep.Copies != 1 || rep.Entries != 3 { // two adds, one deletion
		t.Errorf("merge report %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(a.path), "memory.sync-conflict-20261201-101010-ABCDEFG.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the conflict copy was left beside the file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.state, "backups", "memory.sync-conflict-20261201-101010-ABCDEFG.json")); err != nil {
		t.Errorf("the conflict copy is not in the backups: %v", err)
	}
	// On reload (a watch event), a Dropbox-style copy.
	b.add("B later")
	a.conflictCopy(b, "memory (conflicted copy 2026-12-01).json")
	a.reload()
	if got := a.texts(); !slices.Contains(got, "B later") {
		t.Errorf("after a reload with a Dropbox copy: %q", got)
	}
	if rep := a.s.TakeMergeReport(); rep.Copies != 1 || rep.Entries != 1 {
		t.Errorf("merge report %+v", rep)
	}
	if doc := readDoc(t, a.path); len(doc.Entries) != 5 { // 4 live, 1 tombstone
		t.Errorf("file holds %q", entryTexts(doc.Entries))
	}
}

// A hand deletion in the file is a deletion, and an older copy arriving
// afterwards does not undo it.
func TestSyncHandDeletionNotUndoneByOlderCopy(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := newDevice(t, clk), newDevice(t, clk)
	keep, gone := a.add("stays"), a.add("deleted by hand")
	b.receive(a)
	b.reload()
	doc := readDoc(t, a.path)
	doc.Entries = slices.DeleteFunc(doc.Entries, func(e memory.Entry) bool { return e.ID == gone.ID })
	writeDoc(t, a.path, doc.Entries)
	a.reload()
	if e, _ := a.s.Get(gone.ID); e.Deleted.IsZero() {
		t.Fatalf("the hand deletion is not a tombstone: %+v", e)
	}
	a.receive(b) // B's copy still has it
	a.reload()
	a.open()
	if got := a.texts(); !slices.Equal(got, []string{keep.Text}) {
		t.Errorf("after the older copy: %q", got)
	}
	b.receive(a)
	b.reload()
	if got := b.texts(); !slices.Equal(got, []string{keep.Text}) {
		t.Errorf("the deletion did not spread to B: %q", got)
	}
}

// Replacing the file with a copy that lacks this device's adds, deleting
// it, or an empty file from a device that lost its own: the next open puts
// this device's changes back from its journal, and the other device
// deletes nothing.
func TestSyncJournalRestores(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := newDevice(t, clk), newDevice(t, clk)
	b.add("b only")
	var mine []string
	for i := range 3 {
		mine = append(mine, a.add(fmt.Sprintf("a add %d, then the process exits", i)).Text)
	}
	a.s.Close()
	a.s = nil
	a.receive(b) // an hour ahead, without A's adds
	a.open()
	if got := a.texts(); !slices.Equal(got, sortedTexts(append(slices.Clone(mine), "b only")...)) {
		t.Errorf("after replacement: %q", got)
	}
	if doc := readDoc(t, a.path); len(doc.Entries) != 4 {
		t.Errorf("the restored adds were not written back: %q", entryTexts(doc.Entries))
	}
	os.Remove(a.path)
	a.open()
	if got := a.texts(); len(got) != 3 {
		t.Errorf("after the file was lost: %q", got)
	}
	// A device that had nothing syncs an empty file: nothing is deleted.
	os.WriteFile(a.path, nil, 0o600)
	a.reload()
	if got := a.texts(); len(got) != 3 {
		t.Errorf("after an empty file arrived: %q", got)
	}
}

// An entry written by a device whose clock is years ahead does not win a
// later edit made on another device, and its times are clamped on read.
func TestSyncFutureTimestampClamped(t *testing.T) {
	t.Parallel()
	clk := newClock()
	future := &testClock{t: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}
	a, b := newDevice(t, future), newDevice(t, clk)
	e := a.add("written by a clock in 2099")
	b.receive(a)
	b.reload()
	if got, _ := b.s.Get(e.ID); got.Updated.After(clk.Now()) || got.Created.After(clk.Now()) {
		t.Errorf("a future time was kept: %+v", got)
	}
	clk.Advance(time.Minute)
	if _, err := b.s.Update(e.ID, memory.Change{Text: ptrTo("edited later on B")}); err != nil {
		t.Fatal(err)
	}
	a.receive(b)
	a.reload()
	for name, d := range map[string]*device{"A": a, "B": b} {
		if got, _ := d.s.Get(e.ID); got.Text != "edited later on B" {
			t.Errorf("%s: the future-dated version won: %q", name, got.Text)
		}
	}
}

// Hand edits in the forms people type are read; two entries with one ID
// are both kept.
func TestStoreLenientHandEdits(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	content := `{
  // my memories
  "version": 2,
  "entries": [
    {"id": "dup1", "text": "first with the id", "created": "2025-01-01", "uses": "3", "pinned": "true",},
    {"id": "dup1", "text": "pasted block, same id", "updated": "2025-01-02 10:30"},
    /* a block comment */
    {"text": "no id, unix time", "created": 1735689600, "kind": "pref"},
  ],
}
`
	os.WriteFile(path, []byte(content), 0o600)
	s := openStore(t, path, memory.Options{StateDir: t.TempDir()})
	if s.Err() != nil {
		t.Fatalf("Err: %v", s.Err())
	}
	if got := s.Len(); got != 3 {
		t.Fatalf("read %d entries: %q", got, entryTexts(s.List()))
	}
	first, _ := s.Get("dup1")
	if first.Text != "first with the id" || first.Uses != 3 || !first.Pinned || !first.Created.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("lenient fields: %+v", first)
	}
	var pasted memory.Entry
	for _, e := range s.List() {
		if e.Text == "pasted block, same id" {
			pasted = e
		}
	}
	if pasted.ID == "" || pasted.ID == "dup1" || !pasted.Updated.Equal(time.Date(2025, 1, 2, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("the duplicate: %+v", pasted)
	}
	// Another process derives the same ID for the pasted block.
	o := openStore(t, path, memory.Options{})
	if _, ok := o.Get(pasted.ID); !ok {
		t.Error("the second store gave the duplicate another ID")
	}
}

// The cap never deletes what a person wrote: a hand-merged file of 1,500
// entries stays whole when one is pinned, and an add at the cap is refused
// with a plain message unless an auto memory can go.
func TestStoreCapKeepsWhatAPersonWrote(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	var b strings.Builder
	b.WriteString(`{"version": 1, "entries": [`)
	for i := range 1500 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "e%04[1]d", "kind": "fact", "text": "hand-merged entry %[1]d", "source": "user", "created": "2025-01-01T00:00:00Z"}`, i)
	}
	b.WriteString("]}")
	os.WriteFile(path, []byte(b.String()), 0o600)
	s := openStore(t, path, memory.Options{StateDir: t.TempDir()})
	if s.Len() != 1500 {
		t.Fatalf("opened %d", s.Len())
	}
	if _, err := s.Update("e0007", memory.Change{Pinned: ptrTo(true)}); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1500 || len(readDoc(t, path).Entries) != 1500 {
		t.Fatalf("pinning evicted: %d live", s.Len())
	}
	_, _, err := s.Add(memory.Entry{Text: "one more by hand"})
	var fe *memory.FullError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "memory is full: 1,500 of 1,000; review old memories") {
		t.Errorf("add at the cap: %v", err)
	}
	if n, max := s.Usage(); n != 1500 || max != 1000 {
		t.Errorf("Usage = %d, %d", n, max)
	}
	auto := mustAdd(t, openStore(t, filepath.Join(t.TempDir(), "m.json"), memory.Options{MaxEntries: 1}), memory.Entry{Text: "distilled", Source: memory.SourceAuto})
	if auto.ID == "" {
		t.Fatal("no auto entry")
	}
}

// A read-only memory.json is left alone, with a clear error.
func TestStoreReadOnlyFileLeftAlone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	mustAdd(t, s, memory.Entry{Text: "before the chmod"})
	os.Chmod(path, 0o400)
	before, _ := os.ReadFile(path)
	_, _, err := s.Add(memory.Entry{Text: "after the chmod"})
	if !errors.Is(err, durable.ErrReadOnly) || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Add to a read-only file: %v", err)
	}
	after, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(after) != string(before) || fi.Mode().Perm() != 0o400 {
		t.Errorf("the read-only file was changed: mode %v", fi.Mode().Perm())
	}
}
