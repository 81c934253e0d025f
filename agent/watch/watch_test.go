package watch_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"engram/agent/watch"
)

// deadline bounds every wait for an event; events normally arrive within
// the debounce time.
const deadline = 5 * time.Second

// missing is what a recorder notes when the file is not there.
const missing = "<missing>"

// recorder collects the events of one subscription and the file's content
// as the callback saw it.
type recorder struct {
	mu     sync.Mutex
	events []watch.Event
	seen   []string
}

func (r *recorder) add(ev watch.Event) {
	text := missing
	if b, err := os.ReadFile(ev.Path); err == nil {
		text = string(b)
	}
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.seen = append(r.seen, text)
	r.mu.Unlock()
}

// waitSeen waits until a callback has seen the file holding text (or
// missing) and returns that call's event.
func (r *recorder) waitSeen(t *testing.T, text string) watch.Event {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		r.mu.Lock()
		for i := len(r.seen) - 1; i >= 0; i-- {
			if r.seen[i] == text {
				ev := r.events[i]
				r.mu.Unlock()
				return ev
			}
		}
		r.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no callback saw %q within %v", text, deadline)
	return watch.Event{}
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// waitCount waits until r has more than n events and returns the new count.
func (r *recorder) waitCount(t *testing.T, n int, what string) int {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		if c := r.count(); c > n {
			return c
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: no event within %v", what, deadline)
	return 0
}

func newWatcher(t *testing.T) *watch.Watcher {
	t.Helper()
	w, err := watch.New(watch.Options{Debounce: 30 * time.Millisecond, OnError: func(err error) { t.Log(err) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

func subscribe(t *testing.T, w *watch.Watcher, dir, name string) *recorder {
	t.Helper()
	r := &recorder{}
	if _, err := w.Subscribe(dir, name, r.add); err != nil {
		t.Fatal(err)
	}
	return r
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestChangesArePickedUp(t *testing.T) {
	tests := []struct {
		name   string
		exists bool   // memory.json exists before the change
		want   string // what the callback must see
		change func(t *testing.T, path string)
	}{
		{"edit in place", true, "old\nmore\n", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("more\n"); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncate and write", true, "new\n", func(t *testing.T, path string) {
			writeFile(t, path, "new\n") // os.WriteFile truncates
		}},
		{"rename over (editor save)", true, "saved\n", func(t *testing.T, path string) {
			tmp := filepath.Join(filepath.Dir(path), ".memory.json.swp")
			writeFile(t, tmp, "saved\n")
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"created", false, "first\n", func(t *testing.T, path string) {
			writeFile(t, path, "first\n")
		}},
		{"deleted", true, missing, func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{"moved away", true, missing, func(t *testing.T, path string) {
			if err := os.Rename(path, path+".bak"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "memory.json")
			if tt.exists {
				writeFile(t, path, "old\n")
			}
			w := newWatcher(t)
			r := subscribe(t, w, dir, "memory.json")
			tt.change(t, path)
			ev := r.waitSeen(t, tt.want)
			if ev.Path != path || ev.Dir != dir || ev.Name != "memory.json" {
				t.Errorf("event = %+v, want path %s", ev, path)
			}
			if ev.Op == 0 {
				t.Errorf("event op is 0, want the operations seen")
			}
		})
	}
}

func TestDeleteAndRecreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "AGENTS.md")
	writeFile(t, path, "one")
	w := newWatcher(t)
	r := subscribe(t, w, dir, "AGENTS.md")

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(t, missing)
	writeFile(t, path, "two")
	r.waitSeen(t, "two")
	writeFile(t, path, "three")
	r.waitSeen(t, "three")
}

func TestDirectoryCreatedLater(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "engram", "projects", "slug")
	w := newWatcher(t)
	r := subscribe(t, w, dir, "memory.json")
	other := subscribe(t, w, dir, "AGENTS.md")

	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "memory.json"), "{}")
	r.waitSeen(t, "{}")
	// Arming the new directory reports every subscribed name, since files
	// may have appeared before the watch was in place.
	other.waitSeen(t, missing)

	writeFile(t, filepath.Join(dir, "memory.json"), `{"version":1}`)
	r.waitSeen(t, `{"version":1}`)
}

func TestDirectoryRemovedAndRecreated(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "proj")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "memory.json")
	writeFile(t, path, "{}")
	w := newWatcher(t)
	r := subscribe(t, w, dir, "memory.json")

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(t, missing)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "recreated")
	r.waitSeen(t, "recreated")

	// Moved away: the kernel's watch would follow the directory to its new
	// name; the subscription stays on the old name.
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	r.waitSeen(t, missing)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "made again")
	r.waitSeen(t, "made again")
	writeFile(t, path, "edited")
	if ev := r.waitSeen(t, "edited"); ev.Path != path {
		t.Errorf("event path %s, want %s", ev.Path, path)
	}
}

func TestCallbacksAreSerial(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t)
	var inFlight, overlaps, calls atomic.Int32
	fn := func(watch.Event) {
		if inFlight.Add(1) != 1 {
			overlaps.Add(1)
		}
		time.Sleep(time.Millisecond)
		calls.Add(1)
		inFlight.Add(-1)
	}
	names := []string{"a.json", "b.json", "c.json"}
	for _, name := range names {
		for range 2 {
			if _, err := w.Subscribe(dir, name, fn); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range names {
		writeFile(t, filepath.Join(dir, name), name)
	}
	end := time.Now().Add(deadline)
	for calls.Load() < int32(2*len(names)) && time.Now().Before(end) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := calls.Load(); got < int32(2*len(names)) {
		t.Fatalf("%d calls, want at least %d", got, 2*len(names))
	}
	if overlaps.Load() != 0 {
		t.Errorf("%d callbacks ran concurrently", overlaps.Load())
	}
}

func TestSubscribeAndCancelFromCallback(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t)
	second := &recorder{}
	var sub *watch.Subscription
	var subErr error
	done := make(chan struct{})
	first, err := w.Subscribe(dir, "x", func(watch.Event) {
		if sub == nil {
			sub, subErr = w.Subscribe(dir, "y", second.add)
			close(done)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "x"), "1")
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatal("callback not called")
	}
	if subErr != nil {
		t.Fatal(subErr)
	}
	first.Cancel()
	writeFile(t, filepath.Join(dir, "y"), "1")
	second.waitCount(t, 0, "subscription made in a callback")
	sub.Cancel()
	sub.Cancel() // idempotent
}

func TestSubscribeRejectsPaths(t *testing.T) {
	w := newWatcher(t)
	for _, name := range []string{"", ".", "..", "a/b", "../memory.json"} {
		if _, err := w.Subscribe(t.TempDir(), name, func(watch.Event) {}); err == nil {
			t.Errorf("Subscribe(%q) = nil error", name)
		}
	}
	if _, err := w.Subscribe(t.TempDir(), "memory.json", nil); err == nil {
		t.Error("Subscribe with a nil callback = nil error")
	}
}

func TestCloseStopsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	w, err := watch.New(watch.Options{Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	sub, err := w.Subscribe(dir, "memory.json", r.add)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Subscribe(filepath.Join(dir, "missing", "dir"), "AGENTS.md", r.add); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "memory.json"), "1")
	n := r.waitCount(t, 0, "before close")

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	sub.Cancel() // safe after Close
	if _, err := w.Subscribe(dir, "memory.json", r.add); !errors.Is(err, watch.ErrClosed) {
		t.Errorf("Subscribe after Close: %v, want ErrClosed", err)
	}
	writeFile(t, filepath.Join(dir, "memory.json"), "2")
	// Close has waited for the watcher's goroutine: nothing can call r now.
	if got := r.count(); got != n {
		t.Errorf("%d events after Close, want %d", got, n)
	}

	end := time.Now().Add(deadline)
	for runtime.NumGoroutine() > before && time.Now().Before(end) {
		time.Sleep(5 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("goroutines: %d before, %d after Close\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

func TestSubscribeDir(t *testing.T) {
	w := newWatcher(t)
	dir := filepath.Join(t.TempDir(), "chats") // created later
	r := &recorder{}
	json := func(name string) bool { return filepath.Ext(name) == ".json" }
	if _, err := w.SubscribeDir(dir, json, r.add); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SubscribeDir(dir, nil, r.add); err == nil {
		t.Error("SubscribeDir took a nil match")
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	n := r.waitCount(t, 0, "the folder created")
	writeFile(t, filepath.Join(dir, "a.json"), "a")
	n = r.waitCount(t, n, "a.json written")
	r.mu.Lock()
	ev := r.events[n-1]
	r.mu.Unlock()
	if ev.Name != "" || ev.Path != dir {
		t.Errorf("event = %+v, want the folder's", ev)
	}
	writeFile(t, filepath.Join(dir, "notes.txt"), "x")
	time.Sleep(200 * time.Millisecond) // past the quiet time: a match would have been reported
	if c := r.count(); c != n {
		t.Errorf("notes.txt, which match refuses, made %d calls", c-n)
	}
	writeFile(t, filepath.Join(dir, "b.json"), "b")
	r.waitCount(t, n, "b.json written")
}
