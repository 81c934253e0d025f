package memory_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

// exit closes the device's store (the process exits) and forgets it, so
// the next open is a new process.
func (d *device) exit() {
	if d.s != nil {
		d.s.Close()
		d.s = nil
	}
}

// removeJournal deletes the device's journals.
func (d *device) removeJournal() {
	d.t.Helper()
	if err := os.RemoveAll(filepath.Join(d.state, "journal")); err != nil {
		d.t.Fatal(err)
	}
}

// journalFile is the path of the device's journal.
func (d *device) journalFile() string {
	d.t.Helper()
	paths, _ := filepath.Glob(filepath.Join(d.state, "journal", "*.jsonl"))
	if len(paths) != 1 {
		d.t.Fatalf("journals in %s: %q", d.state, paths)
	}
	return paths[0]
}

// Case 1 of issue 21: a device whose journal lost the records of its later
// changes and that was handed an older copy does not claim the changes the
// copy lacks, so the other device keeps them. The journal is deleted, or
// cut short (a disk fault, a restore), which looks like one whose last
// record a crash cut (found by TestSyncHistoriesLoseNothing).
func TestSyncLostJournalOlderCopyDeletesNothing(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func(a *device, kept []byte){
		"deleted": func(a *device, _ []byte) { a.removeJournal() },
		"cut short": func(a *device, kept []byte) {
			// The journal as it was before the later adds, and a few
			// bytes of the next record.
			if err := os.WriteFile(a.journalFile(), append(kept, `{"at":"20`...), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			a, b := newDevice(t, clk), newDevice(t, clk)
			a.add("before the copy")
			old, err := os.ReadFile(a.path)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := os.ReadFile(a.journalFile())
			if err != nil {
				t.Fatal(err)
			}
			var later []string
			for i := range 5 {
				later = append(later, a.add(fmt.Sprintf("later add %d on A", i)).Text)
			}
			b.receive(a)
			b.reload()
			a.exit()
			damage(a, kept)
			if err := os.WriteFile(a.path, old, 0o600); err != nil {
				t.Fatal(err)
			}
			a.open()
			a.add("after the journal was lost")
			b.receive(a)
			b.reload()
			for _, text := range later {
				if !slices.Contains(b.texts(), text) {
					t.Errorf("B lost %q: %q", text, b.texts())
				}
			}
			a.receive(b)
			a.reload()
			if got := len(a.texts()); got != 7 {
				t.Errorf("A lists %d: %q", got, a.texts())
			}
		})
	}
}

// A clone's journal cut short: the clone can no longer tell its own lost
// changes from the original's, which stamps with the same replica, so it
// counts the replica as forked and keeps the add the original has not
// seen, though the original's Vector covers it (found by
// TestSyncHistoriesLoseNothing).
func TestSyncClonesJournalCutShortKeepsItsAdd(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := newDevice(t, clk), newDevice(t, clk)
	a.add("before the clone")
	b.receive(a)
	b.reload()
	a.exit()
	b.exit()
	cloneState(t, a, b)
	a.open()
	b.open()
	added := b.add("the clone's add")
	a.add("the original's later add")
	b.exit()
	data, err := os.ReadFile(b.journalFile())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.journalFile(), data[:len(data)-20], 0o600); err != nil {
		t.Fatal(err)
	}
	b.open()
	b.receive(a)
	b.reload()
	if !slices.Contains(b.texts(), added.Text) {
		t.Errorf("the clone lost %q: %q", added.Text, b.texts())
	}
	a.receive(b)
	a.reload()
	if !slices.Contains(a.texts(), added.Text) {
		t.Errorf("the original did not get %q: %q", added.Text, a.texts())
	}
}

// Case 1 of issue 21: entries typed into memory.json by hand are journaled
// when first read, so a device whose file is then deleted does not take
// them for deleted, nor make the other device do so.
func TestSyncHandTypedEntriesJournaled(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := newDevice(t, clk), newDevice(t, clk)
	a.exit()
	var typed strings.Builder
	typed.WriteString(`{"version": 2, "entries": [`)
	for i := range 5 {
		if i > 0 {
			typed.WriteString(",")
		}
		fmt.Fprintf(&typed, `{"text": "typed by hand %d"}`, i)
	}
	typed.WriteString("]}")
	if err := os.WriteFile(a.path, []byte(typed.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	a.open()
	b.receive(a)
	b.reload()
	if got := len(b.texts()); got != 5 {
		t.Fatalf("B lists %d", got)
	}
	a.exit()
	os.Remove(a.path)
	a.open()
	a.add("one add after the file was deleted")
	b.receive(a)
	b.reload()
	if got := len(b.texts()); got != 6 {
		t.Errorf("B lists %d, want 6: %q", got, b.texts())
	}
	if got := len(a.texts()); got != 6 {
		t.Errorf("A lists %d, want 6: %q", got, a.texts())
	}
}

// Case 2 of issue 21: an edit and a removal this device made after seeing
// the other device's version are not undone when that version arrives
// again, even though its times are later (the other clock is 5 minutes
// ahead).
func TestSyncOwnChangesSurviveSkewedCopyAtOpen(t *testing.T) {
	t.Parallel()
	for name, skew := range map[string]time.Duration{"5 minutes": 5 * time.Minute, "2 hours": 2 * time.Hour} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clkA := newClock()
			clkB := &testClock{t: clkA.Now().Add(skew)}
			a, b := newDevice(t, clkA), newDevice(t, clkB)
			edited, removed := b.add("edit me on A"), b.add("remove me on A")
			a.receive(b)
			a.reload()
			clkA.Advance(time.Second)
			if _, err := a.s.Update(edited.ID, memory.Change{Text: ptrTo("edited on A")}); err != nil {
				t.Fatal(err)
			}
			if err := a.s.Remove(removed.ID); err != nil {
				t.Fatal(err)
			}
			a.exit()
			a.receive(b) // B's unchanged file again
			clkA.Advance(10 * time.Second)
			a.open()
			if got := a.texts(); !slices.Equal(got, []string{"edited on A"}) {
				t.Errorf("A lists %q, want only its edit", got)
			}
			b.receive(a)
			b.reload()
			if got := b.texts(); !slices.Equal(got, []string{"edited on A"}) {
				t.Errorf("B lists %q, want only A's edit", got)
			}
		})
	}
}

// Case 3 of issue 21: a state folder copied to a clone (the same machine
// fingerprint, so only the data can tell) gives both the same replica; the
// first copy that shows a change the replica never issued makes the store
// mint a new one, and no offline add is lost on either side.
func TestSyncClonedStateFolderLosesNothing(t *testing.T) {
	t.Parallel()
	clkA := newClock()
	clkB := &testClock{t: clkA.Now().Add(1500 * time.Millisecond)}
	a := newDevice(t, clkA)
	a.add("shared before the clone")
	a.exit()
	b := newDevice(t, clkB)
	b.exit()
	cloneState(t, a, b)
	b.receive(a)
	a.open()
	b.open()
	for i := range 3 {
		a.add(fmt.Sprintf("offline on A %d", i))
		b.add(fmt.Sprintf("offline on B %d", i))
	}
	b.receive(a)
	b.reload()
	a.receive(b)
	a.reload()
	for name, d := range map[string]*device{"A": a, "B": b} {
		if got := len(d.texts()); got != 7 {
			t.Errorf("%s lists %d, want 7: %q", name, got, d.texts())
		}
	}
}

// A third device that took one clone's Vector at its word (it covers the
// shared replica's counters up to that clone's last change) does not take
// the other clone's offline add, stamped with the same replica under that
// counter, for a deletion once the fork is found: the clone that finds it
// lists the replica as forked, and the third device then takes no Vector's
// word on it. Found by a sync history
// (TestSyncHistoriesLoseNothing, seed 1796333274524612461).
func TestSyncClonedReplicaAddReachesAThirdDevice(t *testing.T) {
	t.Parallel()
	clkA := newClock()
	clkB := &testClock{t: clkA.Now().Add(1500 * time.Millisecond)}
	a := newDevice(t, clkA)
	a.add("shared before the clone")
	a.exit()
	b := newDevice(t, clkB)
	b.exit()
	cloneState(t, a, b)
	b.receive(a)
	c := newDevice(t, newClock())
	a.open()
	b.open()
	b.add("offline on B") // an earlier counter of the shared replica
	clkA.Advance(time.Hour)
	a.add("offline on A")
	c.receive(a) // C covers the replica up to A's add
	c.reload()
	b.receive(a) // B finds the fork
	b.reload()
	c.receive(b)
	c.reload()
	a.receive(c)
	a.reload()
	b.receive(a)
	b.reload()
	for name, d := range map[string]*device{"A": a, "B": b, "C": c} {
		if got := d.texts(); !slices.Contains(got, "offline on B") || len(got) != 3 {
			t.Errorf("%s lists %q, want all 3 with B's offline add", name, got)
		}
	}
}

// The clone that finds the fork lists the replica as forked in its file,
// and a third device that learns it stops taking any Vector's word on the
// replica: the other clone's add, which it had taken for one it deleted,
// arrives, and nothing is deleted for lack of it.
func TestSyncForkedReplicaSpreads(t *testing.T) {
	t.Parallel()
	clkA := newClock()
	clkB := &testClock{t: clkA.Now().Add(1500 * time.Millisecond)}
	a := newDevice(t, clkA)
	a.add("shared before the clone")
	a.exit()
	b := newDevice(t, clkB)
	b.exit()
	cloneState(t, a, b)
	b.receive(a)
	c := newDevice(t, newClock())
	a.open()
	b.open()
	b.add("offline on B")
	clkA.Advance(time.Hour)
	a.add("offline on A")
	c.receive(a)
	c.reload()
	a.receive(b) // A finds the fork
	a.reload()
	if doc, err := os.ReadFile(a.path); err != nil || !strings.Contains(string(doc), `"forked"`) {
		t.Fatalf("A's file does not list the forked replica (%v):\n%s", err, doc)
	}
	c.receive(a)
	c.reload()
	c.receive(b)
	c.reload()
	a.receive(c)
	a.reload()
	b.receive(a)
	b.reload()
	for name, d := range map[string]*device{"A": a, "B": b, "C": c} {
		if got := d.texts(); !slices.Contains(got, "offline on B") || len(got) != 3 {
			t.Errorf("%s lists %q, want all 3 with B's offline add", name, got)
		}
	}
}

// A third device that had one clone's add and then took the other clone's
// file, which lacks it while its Vector claims the shared replica's
// counters past it, takes the absence for a deletion before anyone knows
// of the fork; once it learns the replica is forked, that tombstone loses
// to the add. Found by a sync history (TestSyncHistoriesLoseNothing, seed
// 1796353169369514647).
func TestSyncTombstoneFromAForkedVectorIsUndone(t *testing.T) {
	t.Parallel()
	clkA := newClock()
	clkB := &testClock{t: clkA.Now().Add(1500 * time.Millisecond)}
	a := newDevice(t, clkA)
	a.add("shared before the clone")
	a.exit()
	b := newDevice(t, clkB)
	b.exit()
	cloneState(t, a, b)
	b.receive(a)
	c := newDevice(t, newClock())
	a.open()
	b.open()
	b.add("offline on B")
	c.receive(b)
	c.reload()
	clkA.Advance(time.Hour)
	a.add("offline on A")
	c.receive(a) // lacks B's add, and seems to have seen it
	c.reload()
	b.receive(a) // B finds the fork
	b.reload()
	c.receive(b)
	c.reload()
	a.receive(c)
	a.reload()
	b.receive(c)
	b.reload()
	for name, d := range map[string]*device{"A": a, "B": b, "C": c} {
		if got := d.texts(); !slices.Contains(got, "offline on B") || len(got) != 3 {
			t.Errorf("%s lists %q, want all 3 with B's offline add", name, got)
		}
	}
}

// cloneState makes to's state folder a copy of from's, as on a disk
// cloned whole: the memory file is at the same place on both, so to's
// journal is from's under the name of to's.
func cloneState(t *testing.T, from, to *device) {
	t.Helper()
	journal := func(d *device) string {
		paths, _ := filepath.Glob(filepath.Join(d.state, "journal", "*.jsonl"))
		if len(paths) != 1 {
			t.Fatalf("journals in %s: %q", d.state, paths)
		}
		return paths[0]
	}
	name := filepath.Base(journal(to))
	if err := os.RemoveAll(to.state); err != nil {
		t.Fatal(err)
	}
	copyDir(t, from.state, to.state)
	if err := os.Rename(journal(to), filepath.Join(to.state, "journal", name)); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the files of the tree src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Case 9 of issue 21: a time typed by hand in the far future does not make
// a hand edit win over a later edit on another device.
func TestSyncTypedFutureDateDoesNotWin(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := newDevice(t, clk), newDevice(t, clk)
	e := a.add("the original text")
	a.add("another entry")
	b.receive(a)
	b.reload()
	a.exit()
	doc := readDoc(t, a.path)
	if doc.Entries[0].ID != e.ID {
		t.Fatalf("file order: %q", entryTexts(doc.Entries))
	}
	doc.Entries[0].Text = "edited by hand on A"
	doc.Entries[0].Updated = time.Date(2062, 1, 1, 0, 0, 0, 0, time.UTC)
	writeDocSeen(t, a.path, doc.Seen, doc.Entries)
	clk.Advance(time.Hour)
	if _, err := b.s.Update(e.ID, memory.Change{Text: ptrTo("edited later on B")}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	b.receive(a) // the hand-edited file, before A's store read it
	b.reload()
	if got, _ := b.s.Get(e.ID); got.Text != "edited later on B" {
		t.Errorf("B: the typed 2062 date won: %q", got.Text)
	}
	if hist := entryTexts(b.s.History(e.ID)); !slices.Contains(hist, "edited by hand on A") {
		t.Errorf("the hand edit is not kept as history: %q", hist)
	}
}

// Case 3 of issue 21: a state folder copied to another machine (a home
// folder migrated, or synced with the memory file) gets a device ID and a
// replica of its own on first use, so no offline add is lost on either
// side.
func TestSyncStateFolderCopiedToAnotherMachine(t *testing.T) {
	t.Parallel()
	clk := newClock()
	dir := t.TempDir()
	a := &device{t: t, path: filepath.Join(dir, "a", "memory.json"), state: filepath.Join(dir, "a-state"), clk: clk}
	b := &device{t: t, path: filepath.Join(dir, "b", "memory.json"), state: filepath.Join(dir, "b-state"), clk: clk}
	open := func(d *device, machine string) {
		d.exit()
		d.s = openStore(t, d.path, memory.Options{StateDir: d.state, Now: clk.Now, Machine: machine})
	}
	open(a, "machine-a")
	a.add("shared before the copy")
	a.exit()
	copyDir(t, a.state, b.state)
	os.MkdirAll(filepath.Dir(b.path), 0o700)
	b.receive(a)
	open(a, "machine-a")
	open(b, "machine-b")
	var ea, eb []memory.Entry
	for i := range 3 {
		ea = append(ea, a.add(fmt.Sprintf("offline on A %d", i)))
		eb = append(eb, b.add(fmt.Sprintf("offline on B %d", i)))
	}
	if ra, rb := ea[0].Rev.Device, eb[0].Rev.Device; ra == rb || strings.Split(ra, "-")[0] == strings.Split(rb, "-")[0] {
		t.Errorf("A stamps with %s, B with %s: B kept A's device ID", ra, rb)
	}
	b.receive(a)
	b.reload()
	a.receive(b)
	a.reload()
	for name, d := range map[string]*device{"A": a, "B": b} {
		if got := len(d.texts()); got != 7 {
			t.Errorf("%s lists %d, want 7: %q", name, got, d.texts())
		}
	}
}

// Two processes of one device share its journal and its replica: one's
// changes are not taken by the other for a clone's.
func TestSyncTwoProcessesShareTheReplica(t *testing.T) {
	t.Parallel()
	path, state := filepath.Join(t.TempDir(), "memory.json"), t.TempDir()
	clk := newClock()
	p1 := openStore(t, path, memory.Options{StateDir: state, Now: clk.Now})
	p2 := openStore(t, path, memory.Options{StateDir: state, Now: clk.Now})
	e1 := mustAdd(t, p1, memory.Entry{Text: "added by the first process"})
	clk.Advance(time.Second)
	if err := p2.Reload(); err != nil {
		t.Fatal(err)
	}
	e2 := mustAdd(t, p2, memory.Entry{Text: "added by the second process"})
	if e1.Rev.Device != e2.Rev.Device {
		t.Errorf("the processes stamp with %s and %s", e1.Rev.Device, e2.Rev.Device)
	}
	if got := len(p2.List()); got != 2 {
		t.Errorf("the second process lists %d", got)
	}
}
