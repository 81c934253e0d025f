// Package watch follows files that people and other programs change while
// Engram runs: memory.json edited by hand, AGENTS.md kept in a project repo,
// config.json synced between machines.
//
// It watches directories, not files, so it survives every way a file gets
// replaced: editors that write a temporary file and rename it over the old
// one, truncate-and-write, delete-and-recreate, sync tools that swap the
// file's inode. Subscribers name a directory and a file name; one fsnotify
// watch per directory serves all of them (reference-counted: cancelling the
// last subscription removes the watch).
//
// # Debouncing
//
// Events are coalesced per (directory, file name): a callback runs once the
// file has been quiet for Options.Debounce (150 ms by default), or at the
// latest Options.MaxDelay after the first change of a burst, so a file that
// is written continuously is still reported. The Event carries the union of
// the operations seen.
//
// # Directories that do not exist yet
//
// A subscription to a missing directory watches its nearest existing
// ancestor instead and moves the watch down, one level at a time, as the
// missing directories appear (mkdir -p is followed: after each move the
// next level is looked up again, so levels created before the watch was in
// place are not missed). When the directory itself is armed again — it was
// created, or it was deleted and recreated, or moved away — every subscribed
// name gets an Event with Op 0, since its files may have changed without an
// event of their own. This costs no polling and no timers.
//
// # Own writes
//
// The watcher reports every change, including the process's own writes.
// Telling them apart is the subscriber's business: the one who wrote the
// file knows what it wrote (the memory store compares the file with a
// fingerprint of its last write).
//
// # Callbacks and goroutines
//
// Callbacks run on the watcher's single goroutine, one at a time, so a
// subscription's callback is never called concurrently with itself. A slow
// callback delays the others (the kernel queues events meanwhile). Callbacks
// may Subscribe and Cancel; they must not call Close. Subscribe, Cancel and
// Close are safe from any goroutine. Close stops the goroutine and waits for
// a callback in progress to return.
package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults for Options.
const (
	DefaultDebounce = 150 * time.Millisecond
	DefaultMaxDelay = 2 * time.Second
)

// ErrClosed is returned by Subscribe after Close.
var ErrClosed = errors.New("watcher closed")

// Options tune a Watcher. The zero value is ready to use.
type Options struct {
	// Debounce is how long a file must stay quiet before its subscribers
	// are called (DefaultDebounce when 0).
	Debounce time.Duration
	// MaxDelay caps how long a burst of changes can postpone the call
	// (DefaultMaxDelay when 0; never less than Debounce).
	MaxDelay time.Duration
	// OnError, if set, receives errors the watcher cannot return to anyone:
	// a lost event queue (ErrEventOverflow; everything subscribed is
	// reported as changed), or a directory that could not be watched again
	// after it moved. It is called on the watcher's goroutine.
	OnError func(error)
}

// Event reports that a subscribed file may have changed. Read the file to
// learn what it holds now; it may also be gone.
type Event struct {
	Dir  string // the subscribed directory, absolute and clean
	Name string // the subscribed file name
	Path string // Dir joined with Name
	// Op is the union of the operations seen since the last call; 0 when
	// the directory was armed again, or events were lost, and the file may
	// have changed without an event of its own.
	Op fsnotify.Op
}

// Watcher delivers debounced change events for files in directories.
type Watcher struct {
	fsw  *fsnotify.Watcher
	opts Options

	mu      sync.Mutex
	closed  bool
	targets map[string]*target // by subscribed directory
	watches map[string]int     // fsnotify watch path → targets armed on it
	pending map[fileKey]*burst
	errs    []error // reported to OnError by the loop, outside mu

	kick   chan struct{} // has a value when pending changed outside the loop
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when the loop has returned
}

// target is a subscribed directory and the directory watched for it.
type target struct {
	dir   string
	armed string // dir itself, or its nearest existing ancestor while dir is missing
	subs  map[string][]*Subscription
}

// matching returns the subscribed name whose SubscribeAlso accepts base.
func (t *target) matching(base string) (string, bool) {
	for name, subs := range t.subs {
		for _, s := range subs {
			if s.match != nil && !s.cancelled && s.match(base) {
				return name, true
			}
		}
	}
	return "", false
}

type fileKey struct{ dir, name string }

// burst is a run of changes to one file waiting for its quiet time.
type burst struct {
	first, due time.Time
	op         fsnotify.Op
}

// Subscription is one subscriber's interest in one file.
type Subscription struct {
	w         *Watcher
	dir, name string
	fn        func(Event)
	match     func(name string) bool // other names reported as name (SubscribeAlso)
	cancelled bool                   // guarded by w.mu
}

// New starts a Watcher. Close it to stop its goroutine and release the
// operating system's watches.
func New(opts Options) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	opts.MaxDelay = max(opts.MaxDelay, opts.Debounce)
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	w := &Watcher{
		fsw:     fsw,
		opts:    opts,
		targets: map[string]*target{},
		watches: map[string]int{},
		pending: map[fileKey]*burst{},
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	go w.loop()
	return w, nil
}

// Subscribe calls fn after the file name in dir changes: written, created,
// renamed over, removed. dir need not exist yet. name is a plain file name,
// not a path. fn runs on the watcher's goroutine (see the package doc).
// Nothing is reported for the file's state at the time of the call: read it
// yourself after subscribing.
func (w *Watcher) Subscribe(dir, name string, fn func(Event)) (*Subscription, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
		return nil, fmt.Errorf("watch %q in %s: not a file name", name, dir)
	}
	return w.subscribe(dir, name, fn)
}

// SubscribeDir calls fn after any file of dir changes whose name match
// accepts (and that nobody subscribed to by name): the files of a folder
// that holds one file per item. Changes of several files in one quiet time
// make one call; its Event has an empty Name and the folder as its Path.
func (w *Watcher) SubscribeDir(dir string, match func(name string) bool, fn func(Event)) (*Subscription, error) {
	if match == nil {
		return nil, fmt.Errorf("watch %s: nil match", dir)
	}
	s, err := w.subscribe(dir, "", fn)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	s.match = match
	w.mu.Unlock()
	return s, nil
}

// subscribe is Subscribe without the check of name ("" is the folder's
// own subscription, see SubscribeDir).
func (w *Watcher) subscribe(dir, name string, fn func(Event)) (*Subscription, error) {
	if fn == nil {
		return nil, fmt.Errorf("watch %s in %s: nil callback", name, dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, ErrClosed
	}
	t := w.targets[abs]
	if t == nil {
		t = &target{dir: abs, subs: map[string][]*Subscription{}}
		if err := w.armLocked(t); err != nil {
			return nil, fmt.Errorf("watch %s: %w", abs, err)
		}
		w.targets[abs] = t
	}
	s := &Subscription{w: w, dir: abs, name: name, fn: fn}
	t.subs[name] = append(t.subs[name], s)
	return s, nil
}

// SubscribeAlso is Subscribe, with fn also called, as for name, after a
// file of dir changes whose name match accepts (and that nobody subscribed
// to by name): the conflict copies a sync tool writes beside a file.
func (w *Watcher) SubscribeAlso(dir, name string, match func(name string) bool, fn func(Event)) (*Subscription, error) {
	s, err := w.Subscribe(dir, name, fn)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	s.match = match
	w.mu.Unlock()
	return s, nil
}

// Cancel ends the subscription: fn is not called again once Cancel has
// returned, except that a call already running on the watcher's goroutine
// finishes. Cancelling the last subscription of a directory removes its
// watch. Cancel is idempotent and safe after Close.
func (s *Subscription) Cancel() {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.cancelled {
		return
	}
	s.cancelled = true
	if w.closed {
		return
	}
	t := w.targets[s.dir]
	if t == nil {
		return
	}
	t.subs[s.name] = slices.DeleteFunc(t.subs[s.name], func(o *Subscription) bool { return o == s })
	if len(t.subs[s.name]) == 0 {
		delete(t.subs, s.name)
		delete(w.pending, fileKey{s.dir, s.name})
	}
	if len(t.subs) == 0 {
		w.releaseLocked(t.armed)
		delete(w.targets, s.dir)
	}
}

// Close stops the watcher: no callback runs after it returns, and the
// watcher's goroutines are gone. It must not be called from a callback.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	<-w.exited
	if err := w.fsw.Close(); err != nil {
		return fmt.Errorf("stop file watcher: %w", err)
	}
	return nil
}

// loop is the watcher's goroutine: it turns fsnotify events into bursts
// and calls the subscribers of the bursts that are due.
func (w *Watcher) loop() {
	defer close(w.exited)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		w.mu.Lock()
		next, ok := w.nextDueLocked()
		w.mu.Unlock()
		var due <-chan time.Time
		if ok {
			timer.Reset(time.Until(next))
			due = timer.C
		}
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.mu.Lock()
			w.handleLocked(ev, time.Now())
			w.mu.Unlock()
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			w.errs = append(w.errs, fmt.Errorf("file watcher: %w", err))
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.rescanLocked(time.Now())
			}
			w.mu.Unlock()
		case <-due:
		case <-w.kick:
		}
		w.reportErrors()
		if !w.fire() {
			return
		}
	}
}

// handleLocked applies one fsnotify event.
func (w *Watcher) handleLocked(ev fsnotify.Event, now time.Time) {
	name := filepath.Clean(ev.Name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	if t := w.targets[dir]; t != nil && t.armed == dir {
		if len(t.subs[base]) > 0 {
			w.scheduleLocked(fileKey{dir, base}, ev.Op, now)
		} else if name, ok := t.matching(base); ok {
			w.scheduleLocked(fileKey{dir, name}, ev.Op, now)
		}
	}
	// A watched directory went away (deleted or moved): inotify has dropped
	// its watch, or it follows the directory to its new name. Watch again
	// whatever is there now, and report every file of the targets that
	// were armed on it.
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if _, ok := w.watches[name]; ok {
			delete(w.watches, name)
			_ = w.fsw.Remove(name) // usually gone already
			for _, t := range w.targets {
				if t.armed == name {
					home := t.armed == t.dir
					t.armed = ""
					w.rearmLocked(t, now, home)
				}
			}
		}
	}
	// A directory on the way down to a missing target appeared (or moved).
	for _, t := range w.targets {
		if t.armed != t.dir && within(name, t.dir) {
			w.rearmLocked(t, now, false)
		}
	}
}

// rearmLocked moves t's watch to the nearest existing directory and, when
// t's own directory is now watched and was not before (or always, when
// report is set), reports all of t's names as changed.
func (w *Watcher) rearmLocked(t *target, now time.Time, report bool) {
	before := t.armed
	if err := w.armLocked(t); err != nil {
		w.errs = append(w.errs, fmt.Errorf("watch %s: %w", t.dir, err))
	}
	if report || (before != t.dir && t.armed == t.dir) {
		for name := range t.subs {
			w.scheduleLocked(fileKey{t.dir, name}, 0, now)
		}
	}
}

// rescanLocked reports every subscribed file and re-checks every watch,
// after the kernel's queue overflowed and events were lost.
func (w *Watcher) rescanLocked(now time.Time) {
	for _, t := range w.targets {
		if t.armed != t.dir {
			w.rearmLocked(t, now, false)
		}
		for name := range t.subs {
			w.scheduleLocked(fileKey{t.dir, name}, 0, now)
		}
	}
}

// armLocked points t's watch at t.dir or, while that is missing, at its
// nearest existing ancestor. After each watch is in place it looks again,
// so directories created meanwhile (mkdir -p) are followed down.
func (w *Watcher) armLocked(t *target) error {
	const maxTries = 64 // directories appearing and vanishing faster than we can watch them
	for range maxTries {
		p := nearestDir(t.dir)
		if p == t.armed {
			return nil
		}
		if err := w.acquireLocked(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // deleted between the look and the watch
			}
			return err
		}
		if t.armed != "" {
			w.releaseLocked(t.armed)
		}
		t.armed = p
	}
	return fmt.Errorf("directories keep changing under %s", nearestDir(t.dir))
}

func (w *Watcher) acquireLocked(p string) error {
	if w.watches[p] == 0 {
		if err := w.fsw.Add(p); err != nil {
			return err
		}
	}
	w.watches[p]++
	return nil
}

func (w *Watcher) releaseLocked(p string) {
	n, ok := w.watches[p]
	if !ok {
		return // dropped when the directory went away
	}
	if n > 1 {
		w.watches[p] = n - 1
		return
	}
	delete(w.watches, p)
	_ = w.fsw.Remove(p) // fails when the directory is already gone; nothing to undo
}

func (w *Watcher) scheduleLocked(k fileKey, op fsnotify.Op, now time.Time) {
	b := w.pending[k]
	if b == nil {
		b = &burst{first: now}
		w.pending[k] = b
	}
	b.op |= op
	b.due = now.Add(w.opts.Debounce)
	if limit := b.first.Add(w.opts.MaxDelay); b.due.After(limit) {
		b.due = limit
	}
}

func (w *Watcher) nextDueLocked() (time.Time, bool) {
	var next time.Time
	for _, b := range w.pending {
		if next.IsZero() || b.due.Before(next) {
			next = b.due
		}
	}
	return next, !next.IsZero()
}

// fire calls the subscribers of every due burst, earliest first, without
// holding mu. It reports false when the watcher was closed meanwhile.
func (w *Watcher) fire() bool {
	now := time.Now()
	type call struct {
		s   *Subscription
		ev  Event
		due time.Time
	}
	var calls []call
	w.mu.Lock()
	for k, b := range w.pending {
		if b.due.After(now) {
			continue
		}
		delete(w.pending, k)
		t := w.targets[k.dir]
		if t == nil {
			continue
		}
		ev := Event{Dir: k.dir, Name: k.name, Path: filepath.Join(k.dir, k.name), Op: b.op}
		for _, s := range t.subs[k.name] {
			calls = append(calls, call{s, ev, b.due})
		}
	}
	w.mu.Unlock()
	slices.SortStableFunc(calls, func(a, b call) int { return a.due.Compare(b.due) })
	for _, c := range calls {
		w.mu.Lock()
		skip, closed := c.s.cancelled, w.closed
		w.mu.Unlock()
		if closed {
			return false
		}
		if !skip {
			c.s.fn(c.ev)
		}
	}
	return true
}

func (w *Watcher) reportErrors() {
	w.mu.Lock()
	errs := w.errs
	w.errs = nil
	w.mu.Unlock()
	if w.opts.OnError == nil {
		return
	}
	for _, err := range errs {
		w.opts.OnError(err)
	}
}

// nearestDir returns dir if it is an existing directory, else its nearest
// ancestor that is.
func nearestDir(dir string) string {
	for p := dir; ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(p) == p {
			return p
		}
	}
}

// within reports whether p is dir or one of dir's ancestors.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(p, dir)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
