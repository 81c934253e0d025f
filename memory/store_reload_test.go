package memory_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/memory"
)

// writeDoc writes entries to the file as a person editing it does: the
// entries change, the rest of the file ("seen") stays.
func writeDoc(t *testing.T, path string, entries []memory.Entry) {
	t.Helper()
	var old fileDoc
	if data, err := os.ReadFile(path); err == nil {
		json.Unmarshal(data, &old)
	}
	writeDocSeen(t, path, old.Seen, entries)
}

// writeDocSeen writes the entries and the Vector seen to the file (an
// editor saving its buffer).
func writeDocSeen(t *testing.T, path string, seen map[string]uint64, entries []memory.Entry) {
	t.Helper()
	data, err := json.MarshalIndent(fileDoc{Version: 2, Seen: seen, Entries: entries}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// Write in place, as an editor without atomic saves would.
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestStoreReloadHandEdits(t *testing.T) {
	t.Parallel()
	clk := newClock()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{Now: clk.Now})
	changes := 0
	s.OnChange(func() { changes++ })
	a := mustAdd(t, s, memory.Entry{Text: "alpha original text"})
	clk.Advance(time.Second)
	b := mustAdd(t, s, memory.Entry{Text: "beta will be deleted by hand"})
	clk.Advance(time.Second)
	c := mustAdd(t, s, memory.Entry{Text: "gamma stays as it is"})
	if s.ChangedOnDisk() {
		t.Fatal("ChangedOnDisk after the store's own write")
	}
	changes = 0
	if err := s.Reload(); err != nil || changes != 0 {
		t.Fatalf("Reload with nothing changed: %v, %d change events", err, changes)
	}

	// A person edits alpha's text (leaving its times), deletes beta and adds
	// an entry without ID or times.
	doc := readDoc(t, path)
	doc.Entries[0].Text = "alpha edited by hand"
	doc.Entries = slices.Delete(doc.Entries, 1, 2)
	doc.Entries = append(doc.Entries, memory.Entry{Kind: "pref", Text: "hand-added preference"})
	clk.Advance(time.Minute)
	writeDoc(t, path, doc.Entries)
	os.Chtimes(path, clk.Now(), clk.Now()) // the hand-added entry's creation time
	if !s.ChangedOnDisk() {
		t.Fatal("ChangedOnDisk missed a hand edit")
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if changes != 1 {
		t.Errorf("%d change events, want 1", changes)
	}
	if got := entryTexts(s.List()); !slices.Equal(got, []string{"alpha edited by hand", c.Text, "hand-added preference"}) {
		t.Errorf("after reload: %q", got)
	}
	if e, _ := s.Get(b.ID); e.Deleted.IsZero() {
		t.Errorf("the hand-deleted entry is not a tombstone: %+v", e)
	}
	if e, _ := s.Get(a.ID); !e.Updated.Equal(a.Updated) {
		t.Errorf("hand edit: %+v", e)
	}
	// The next write keeps the hand edits and spreads the deletion.
	clk.Advance(time.Minute)
	mustAdd(t, s, memory.Entry{Text: "delta after the edit"})
	doc = readDoc(t, path)
	var live []string
	for _, e := range doc.Entries {
		if e.Deleted.IsZero() {
			live = append(live, e.Text)
		}
	}
	if !slices.Equal(live, []string{"alpha edited by hand", c.Text, "hand-added preference", "delta after the edit"}) || len(doc.Entries) != 5 {
		t.Errorf("file after the next write: %q (%d records)", live, len(doc.Entries))
	}
	// Another store opening the file now sees the same thing.
	o := openStore(t, path, memory.Options{})
	if !slices.Equal(entryIDs(o.List()), entryIDs(s.List())) {
		t.Errorf("second store: %q", entryTexts(o.List()))
	}
}

func TestStoreReloadStaleSave(t *testing.T) {
	t.Parallel()
	// An editor opened the file, the app then changed an entry and added
	// another, and the editor saved its old buffer with an edit of its own.
	clk := newClock()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{Now: clk.Now})
	a := mustAdd(t, s, memory.Entry{Text: "alpha as first written"})
	clk.Advance(time.Second)
	b := mustAdd(t, s, memory.Entry{Text: "beta untouched"})
	stale := readDoc(t, path)
	buffer := stale.Entries

	clk.Advance(time.Minute)
	a2, err := s.Update(a.ID, memory.Change{Text: ptrTo("alpha as the app updated it")})
	if err != nil {
		t.Fatal(err)
	}
	added := mustAdd(t, s, memory.Entry{Text: "added while the editor was open"})

	buffer[0].Text = "alpha as the person edited it"
	writeDocSeen(t, path, stale.Seen, buffer)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	// The newer version wins, the stale one is kept as history, and the
	// entry the stale save dropped is still there.
	got, _ := s.Get(a.ID)
	if got.Text != a2.Text {
		t.Errorf("alpha is %q, want the newer %q", got.Text, a2.Text)
	}
	if e, _ := s.Get(added.ID); !e.Live() {
		t.Errorf("the entry a stale save dropped is gone: %+v", e)
	}
	if e, _ := s.Get(b.ID); !e.Live() {
		t.Error("beta lost")
	}
	var hist *memory.Entry
	for _, e := range s.All() {
		if e.SupersededBy == a.ID && e.Text == "alpha as the person edited it" {
			hist = &e
		}
	}
	if hist == nil || hist.Live() {
		t.Fatalf("the losing edit was not kept as history: %+v", s.All())
	}
	if len(s.List()) != 3 {
		t.Errorf("live: %q", entryTexts(s.List()))
	}
	// The first text (kept by the app's edit) and the person's losing edit
	// carry the same time, so only the current version's place is fixed.
	h := entryTexts(s.History(a.ID))
	if len(h) != 3 || h[2] != a2.Text || !slices.Contains(h, "alpha as first written") ||
		!slices.Contains(h, "alpha as the person edited it") {
		t.Errorf("History(alpha) = %q", h)
	}
}

func TestStoreReloadVanishedFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	a := mustAdd(t, s, memory.Entry{Text: "survives the file vanishing"})
	os.Remove(path)
	if !s.ChangedOnDisk() {
		t.Error("ChangedOnDisk missed the removal")
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if doc := readDoc(t, path); len(doc.Entries) != 1 || doc.Entries[0].ID != a.ID {
		t.Errorf("not written back: %+v", doc.Entries)
	}
}

func TestStoreChangedOnDiskIgnoresIdenticalRewrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	mustAdd(t, s, memory.Entry{Text: "some entry"})
	data, _ := os.ReadFile(path)
	tmp := path + ".sync"
	os.WriteFile(tmp, data, 0o600)
	os.Rename(tmp, path) // a sync tool replacing the file with the same bytes
	if s.ChangedOnDisk() {
		t.Error("identical bytes reported as a change")
	}
	o := openStore(t, path, memory.Options{})
	mustAdd(t, o, memory.Entry{Text: "another writer's entry"})
	if !s.ChangedOnDisk() {
		t.Error("another store's write not reported")
	}
	if err := s.Reload(); err != nil || s.Len() != 2 {
		t.Errorf("reload: %v, len %d", err, s.Len())
	}
	if s.ChangedOnDisk() {
		t.Error("ChangedOnDisk after Reload")
	}
}

func TestStoreReloadMergesConcurrentEdits(t *testing.T) {
	t.Parallel()
	// Two stores edit one entry; the later Updated wins in both, and use
	// counts are not lost.
	clk := newClock()
	path := filepath.Join(t.TempDir(), "memory.json")
	s1 := openStore(t, path, memory.Options{Now: clk.Now})
	e := mustAdd(t, s1, memory.Entry{Text: "shared entry text"})
	s2 := openStore(t, path, memory.Options{Now: clk.Now})
	clk.Advance(time.Second)
	if err := s2.MarkUsed(e.ID); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if _, err := s1.Update(e.ID, memory.Change{Kind: ptrTo(memory.KindPreference)}); err != nil {
		t.Fatal(err)
	}
	s2.Reload()
	for i, s := range []*memory.Store{s1, s2} {
		got, _ := s.Get(e.ID)
		if got.Kind != memory.KindPreference || got.Uses != 1 {
			t.Errorf("store %d: %+v", i+1, got)
		}
	}
	if strings.Count(string(mustRead(t, path)), `"id"`) != 1 {
		t.Error("the file holds copies")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestStoreConcurrentUse exercises every entry point at once (run it with
// -race): writers through two stores, recall, reload and the watcher check.
func TestStoreConcurrentUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	other := openStore(t, path, memory.Options{})
	var events sync.WaitGroup
	changed := make(chan struct{}, 1000)
	s.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	n := 40 // every add is an fsynced write: a second in full, a quarter with -short
	if testing.Short() {
		n = 10
	}
	var wg sync.WaitGroup
	for w, st := range []*memory.Store{s, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				e, _, err := st.Add(memory.Entry{Text: fmt.Sprintf("writer %d remembers thing %d about recall", w, i)})
				if err != nil {
					t.Error(err)
					return
				}
				if i%5 == 0 {
					st.MarkUsed(e.ID)
				}
			}
		}()
	}
	stop := make(chan struct{})
	events.Add(1)
	go func() {
		defer events.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.Recall("remembers thing about recall", []string{"earlier message"}, memory.RecallOptions{K: 3})
			if s.ChangedOnDisk() {
				if err := s.Reload(); err != nil {
					t.Error(err)
				}
			}
			s.List()
		}
	}()
	wg.Wait()
	close(stop)
	events.Wait()
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2*n {
		t.Errorf("store sees %d entries, want %d", s.Len(), 2*n)
	}
	if len(changed) == 0 {
		t.Error("no change events")
	}
}

func TestStoreReloadSyncedOlderCopy(t *testing.T) {
	// A sync tool replaces the file with another machine's copy, written
	// before this store added an entry: the entry is kept, not deleted.
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	old := mustAdd(t, s, memory.Entry{Text: "known on both machines"})
	copyData := mustRead(t, path)
	copyTime := time.Now().Add(-time.Minute)
	added := mustAdd(t, s, memory.Entry{Text: "added here after the other copy was written"})

	tmp := filepath.Join(filepath.Dir(path), ".syncthing.memory.json.tmp")
	os.WriteFile(tmp, copyData, 0o600)
	os.Chtimes(tmp, copyTime, copyTime)
	os.Rename(tmp, path)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{old.ID, added.ID} {
		if e, _ := s.Get(id); !e.Live() {
			t.Errorf("%q lost: %+v", e.Text, e)
		}
	}
}

// The store's index follows every kind of change: edits, removals,
// restores, evictions and changes read from the file; and it ranks as the
// index of a store opened afresh on the same file does.
func TestStoreRecallFollowsChanges(t *testing.T) {
	t.Parallel()
	clk := newClock()
	path := filepath.Join(t.TempDir(), "memory.json")
	opts := memory.Options{MaxEntries: 3, Now: clk.Now}
	s := openStore(t, path, opts)
	other := openStore(t, path, opts)
	add := func(st *memory.Store, text string) memory.Entry {
		clk.Advance(time.Minute)
		return mustAdd(t, st, memory.Entry{Text: text, Source: memory.SourceAuto})
	}
	recalls := func(st *memory.Store, query string) []string {
		var ids []string
		for _, h := range st.Recall(query, nil, memory.RecallOptions{}) {
			ids = append(ids, h.Entry.ID)
		}
		return ids
	}
	check := func(step, query string, want ...string) {
		t.Helper()
		if got := recalls(s, query); !slices.Equal(got, want) {
			t.Errorf("after %s, Recall(%q) = %v, want %v", step, query, got, want)
		}
	}
	pipe := add(s, "The deploy pipeline is blue-green.")
	cat := add(s, "The user's cat is called Miso.")
	office := add(s, "The office is in Lyon.")
	check("adding", "deploy pipeline", pipe.ID)

	clk.Advance(time.Minute)
	if _, err := s.Update(pipe.ID, memory.Change{Text: ptrTo("The deploy pipeline is canary now.")}); err != nil {
		t.Fatal(err)
	}
	check("an edit", "canary", pipe.ID)
	check("an edit", "blue-green")
	if err := s.Remove(cat.ID); err != nil {
		t.Fatal(err)
	}
	check("a removal", "Miso cat")
	clk.Advance(time.Minute)
	if err := s.Restore(cat.ID); err != nil {
		t.Fatal(err)
	}
	check("a restore", "Miso cat", cat.ID)
	tea := add(s, "Drinks green tea in the morning.") // evicts the least recent: the office
	if e, _ := s.Get(office.ID); e.Deleted.IsZero() {
		t.Fatalf("the office was not evicted: %q", entryTexts(s.List()))
	}
	check("an eviction", "Lyon office")
	check("an eviction", "green tea", tea.ID)

	if err := other.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := other.Remove(tea.ID); err != nil {
		t.Fatal(err)
	}
	book := add(other, "Reading a novel about lighthouses.")
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	check("a reload", "green tea")
	check("a reload", "lighthouse novel", book.ID)

	fresh := openStore(t, path, memory.Options{MaxEntries: 3})
	for _, q := range []string{"deploy pipeline canary", "cat", "novel", "the user"} {
		if got, want := recalls(s, q), recalls(fresh, q); !slices.Equal(got, want) {
			t.Errorf("Recall(%q): %v, a freshly opened store gives %v", q, got, want)
		}
	}
}
