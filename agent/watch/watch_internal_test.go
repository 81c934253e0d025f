package watch

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

const deadline = 5 * time.Second

// flush makes every pending burst due now.
func (w *Watcher) flush() {
	w.mu.Lock()
	for _, b := range w.pending {
		b.due = time.Time{}.Add(1)
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// waitPending waits until the loop has queued a burst for dir/name.
func waitPending(t *testing.T, w *Watcher, dir, name string) {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		w.mu.Lock()
		_, ok := w.pending[fileKey{dir, name}]
		w.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no event for %s within %v", name, deadline)
}

type counter struct {
	mu  sync.Mutex
	evs []Event
}

func (c *counter) add(ev Event) {
	c.mu.Lock()
	c.evs = append(c.evs, ev)
	c.mu.Unlock()
}

func (c *counter) events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.evs)
}

func (c *counter) wait(t *testing.T, n int) []Event {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		if evs := c.events(); len(evs) >= n {
			return evs
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("fewer than %d callbacks within %v", n, deadline)
	return nil
}

// slowWatcher never fires on its own: tests decide when with flush, so
// what was coalesced does not depend on the machine's speed.
func slowWatcher(t *testing.T) *Watcher {
	t.Helper()
	w, err := New(Options{Debounce: time.Hour, MaxDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func TestDebounceCoalescesBurst(t *testing.T) {
	dir := t.TempDir()
	w := slowWatcher(t)
	var mem, agents, marker counter
	for name, c := range map[string]*counter{"memory.json": &mem, "AGENTS.md": &agents, "marker": &marker} {
		if _, err := w.Subscribe(dir, name, c.add); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "memory.json")
	for i := range 100 {
		if err := os.WriteFile(path, []byte{byte('a' + i%26)}, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, "memory.json.tmp")
	if err := os.WriteFile(tmp, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The kernel queues events in order: once the marker's event has been
	// read, so have all the writes before it.
	if err := os.WriteFile(filepath.Join(dir, "marker"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitPending(t, w, dir, "marker")
	w.flush()
	marker.wait(t, 1)

	evs := mem.events()
	if len(evs) != 1 {
		t.Fatalf("memory.json: %d callbacks for 101 writes, want 1: %v", len(evs), evs)
	}
	for _, op := range []fsnotify.Op{fsnotify.Write, fsnotify.Create} {
		if !evs[0].Op.Has(op) {
			t.Errorf("coalesced op %v lacks %v", evs[0].Op, op)
		}
	}
	if n := len(agents.events()); n != 0 {
		t.Errorf("AGENTS.md: %d callbacks for changes to other files, want 0", n)
	}
}

func TestScheduleCapsDelay(t *testing.T) {
	w := &Watcher{opts: Options{Debounce: 100 * time.Millisecond, MaxDelay: 250 * time.Millisecond},
		pending: map[fileKey]*burst{}}
	k := fileKey{"/d", "f"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		at, due time.Duration
	}{
		{0, 100 * time.Millisecond},                     // first change: quiet time
		{50 * time.Millisecond, 150 * time.Millisecond}, // more: pushed back
		{140 * time.Millisecond, 240 * time.Millisecond},
		{200 * time.Millisecond, 250 * time.Millisecond}, // capped at first+MaxDelay
		{249 * time.Millisecond, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		w.scheduleLocked(k, fsnotify.Write, t0.Add(tt.at))
		if got := w.pending[k].due.Sub(t0); got != tt.due {
			t.Errorf("change at %v: due at %v, want %v", tt.at, got, tt.due)
		}
	}
}

// osWatches is the set of directories fsnotify watches.
func osWatches(w *Watcher) []string {
	l := w.fsw.WatchList()
	slices.Sort(l)
	return l
}

func TestWatchesAreSharedAndReleased(t *testing.T) {
	root := t.TempDir()
	missingDir := filepath.Join(root, "projects", "slug")
	w := slowWatcher(t)
	var subs []*Subscription
	for _, s := range []struct{ dir, name string }{
		{root, "memory.json"}, {root, "memory.json"}, {root, "AGENTS.md"}, {root, "config.json"},
		{missingDir, "memory.json"}, // armed on root while missing
	} {
		sub, err := w.Subscribe(s.dir, s.name, func(Event) {})
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, sub)
	}
	if got, want := osWatches(w), []string{root}; !slices.Equal(got, want) {
		t.Fatalf("watches %v, want %v", got, want)
	}
	w.mu.Lock()
	refs := w.watches[root]
	w.mu.Unlock()
	if refs != 2 {
		t.Errorf("root watch shared by %d targets, want 2", refs)
	}

	subs[0].Cancel()
	subs[2].Cancel()
	subs[3].Cancel()
	if got := osWatches(w); !slices.Equal(got, []string{root}) {
		t.Fatalf("after cancelling some: watches %v, want [%s]", got, root)
	}
	subs[1].Cancel()
	if got := osWatches(w); !slices.Equal(got, []string{root}) {
		t.Fatalf("missing dir's watch on its ancestor dropped: %v", got)
	}
	subs[4].Cancel()
	if got := osWatches(w); len(got) != 0 {
		t.Fatalf("after cancelling all: watches %v, want none", got)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.targets) != 0 || len(w.watches) != 0 {
		t.Errorf("state left behind: targets %v, watches %v", w.targets, w.watches)
	}
}

func TestMissingDirectoryMovesDown(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "c")
	w := slowWatcher(t)
	var c counter
	if _, err := w.Subscribe(dir, "memory.json", c.add); err != nil {
		t.Fatal(err)
	}
	if got := osWatches(w); !slices.Equal(got, []string{root}) {
		t.Fatalf("watches %v, want the nearest existing ancestor %s", got, root)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	waitPending(t, w, dir, "memory.json") // armed on dir: its names are reported
	if got := osWatches(w); !slices.Equal(got, []string{dir}) {
		t.Fatalf("watches %v, want %s", got, dir)
	}
	w.flush()
	if evs := c.wait(t, 1); evs[0].Op != 0 {
		t.Errorf("arming event op %v, want 0", evs[0].Op)
	}

	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(deadline)
	for !slices.Equal(osWatches(w), []string{root}) && time.Now().Before(end) {
		time.Sleep(2 * time.Millisecond)
	}
	if got := osWatches(w); !slices.Equal(got, []string{root}) {
		t.Fatalf("after removal: watches %v, want %s", got, root)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		p, dir string
		want   bool
	}{
		{"/a", "/a/b/c", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b/c", "/a/b/c", true},
		{"/a/b/c/d", "/a/b/c", false},
		{"/a/x", "/a/b/c", false},
		{"/a/b..", "/a/b/c", false},
		{"/", "/a", true},
	}
	for _, tt := range tests {
		if got := within(tt.p, tt.dir); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}
