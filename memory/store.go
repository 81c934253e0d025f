package memory

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"engram/memory/durable"
)

// DefaultTombstoneTTL is how long a deletion is kept in the file when
// Options.TombstoneTTL is 0.
const DefaultTombstoneTTL = 30 * 24 * time.Hour

// settleDelay is how long a store waits before reading an unparsable file
// again, in case a writer that does not replace files atomically (an editor
// saving in place) was caught mid-write.
const settleDelay = 50 * time.Millisecond

// Options configures a Store. The zero value is ready to use.
type Options struct {
	// MaxEntries caps the entries of the store, tombstones aside (default
	// DefaultMaxEntries). Going over it evicts (see Store.Add).
	MaxEntries int
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
	// TombstoneTTL is how long a deleted entry stays in the file as a
	// tombstone so that other writers and sync tools see the deletion
	// (default DefaultTombstoneTTL).
	TombstoneTTL time.Duration
}

// Change is a partial update of an entry; nil fields are left alone.
type Change struct {
	Text   *string
	Kind   *Kind
	Pinned *bool
	// Source, when set, becomes the entry's source and sets the text limit
	// (MaxRunes). When nil the limit is that of hand-written entries.
	Source *Source
}

// AddResult is the outcome of one entry of AddAll.
type AddResult struct {
	Entry Entry // the stored entry: the new one, or the existing duplicate
	New   bool
	Err   error // validation error; the entry was not stored
}

// Store is one memory file: a global store or a project's. It keeps every
// entry in memory and writes the whole file on each change: under an
// exclusive flock on <path>.lock it re-reads the file if another writer
// changed it, merges by ID, applies the change, and replaces the file
// atomically. So writers in several goroutines, Stores or processes never
// lose each other's entries.
//
// All methods are safe for concurrent use. Listeners registered with
// OnChange run after the change, in the goroutine that made it, with no lock
// held.
type Store struct {
	path string // "" for an in-memory store
	max  int
	ttl  time.Duration
	now  func() time.Time
	seed maphash.Seed

	mu         sync.Mutex
	lock       *os.File // the open lock file; nil in memory
	recs       map[string]Entry
	forms      formSet // dedupe normal forms by ID (see formOf)
	formsReady bool
	enc        map[string]encodedEntry // file text of each entry, reused while it is unchanged
	order      []string                // IDs in file order as last read, written or listed
	buf        []byte                  // the file as last encoded, reused by the next write
	index      *Index                  // nil until the first Recall
	disk       diskState
	corrupt    *CorruptError
	unparsable *UnparsableError // the file changed after Open into something that does not parse
	badStamp   durable.Stamp    // the stamp of that file, so it is parsed once
	opened     bool             // Open has read the file: from now on an unparsable file is left alone
	ioErr      error
	listeners  []func()
	closed     bool
}

func newStore(opts Options) *Store {
	s := &Store{
		max:  opts.MaxEntries,
		ttl:  opts.TombstoneTTL,
		now:  opts.Now,
		seed: maphash.MakeSeed(),
		recs: map[string]Entry{},
		enc:  map[string]encodedEntry{},
	}
	if s.max <= 0 {
		s.max = DefaultMaxEntries
	}
	if s.ttl <= 0 {
		s.ttl = DefaultTombstoneTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Open opens the store at path, creating its directory (mode 0700) if
// needed; the file itself is created by the first change. It fails only
// when the store is unusable: the directory or lock file cannot be
// created, the file cannot be read, is larger than MaxFileSize
// (ErrTooLarge) or was written by a newer version (ErrUnsupportedVersion).
//
// A file that does not parse is never read as empty and never overwritten:
// it is moved aside to <path>.corrupt-<time>, the store opens empty and Err
// returns a *CorruptError. A file in a legacy shape is copied to
// <path>.legacy-<time> and rewritten in the current shape. (A file that
// stops parsing after Open is someone's edit in progress and is left
// alone: see UnparsableError.)
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("open memory: no path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open memory %s: %w", path, err)
	}
	abs = followLinks(abs)
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	lf, err := os.OpenFile(abs+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	s := newStore(opts)
	s.path, s.lock = abs, lf
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := durable.Lock(lf); err != nil {
		lf.Close()
		return nil, fmt.Errorf("open memory %s: lock: %w", abs, err)
	}
	defer durable.Unlock(lf)
	durable.RemoveStaleTemps(abs)
	_, rewrite, err := s.syncLocked()
	if err == nil && rewrite {
		err = s.writeLocked(s.recs)
	}
	if err != nil {
		lf.Close()
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	s.opened = true
	return s, nil
}

// NewInMemory returns a store without a file, for tests and benchmarks.
func NewInMemory(opts Options) *Store { return newStore(opts) }

// Path is the store's file, absolute and with symlinks resolved; "" for an
// in-memory store.
func (s *Store) Path() string { return s.path }

// Err is the store's error state, nil when all is well: a *CorruptError
// after an unreadable file was set aside (until ClearErr), or else the
// error of the last failed read or write of the file (until one succeeds).
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errLocked()
}

func (s *Store) errLocked() error {
	if s.unparsable != nil {
		return s.unparsable
	}
	if s.corrupt != nil {
		return s.corrupt
	}
	return s.ioErr
}

// ClearErr acknowledges a *CorruptError so that Err stops reporting it.
func (s *Store) ClearErr() {
	s.mu.Lock()
	changed := s.corrupt != nil
	s.corrupt = nil
	s.mu.Unlock()
	if changed {
		s.notify()
	}
}

// OnChange registers fn to be called after every change to the entries or
// the error state, whether made through this store or read from the file by
// Reload or before a write.
func (s *Store) OnChange(fn func()) {
	s.mu.Lock()
	s.listeners = append(s.listeners, fn)
	s.mu.Unlock()
}

func (s *Store) notify() {
	s.mu.Lock()
	fns := slices.Clone(s.listeners)
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// List returns the live entries (not deleted, not superseded) in file
// order: oldest first; entries created in the same millisecond in the
// order they were added.
func (s *Store) List() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.sorted(s.recs)
	return slices.DeleteFunc(all, func(e Entry) bool { return !e.Live() })
}

// All returns every record in file order, superseded history and
// tombstones included.
func (s *Store) All() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sorted(s.recs)
}

// Len is the number of live entries.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.recs {
		if e.Live() {
			n++
		}
	}
	return n
}

// Get returns the entry with the ID, live or not (check Entry.Live).
func (s *Store) Get(id string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.recs[id]
	return e, ok
}

// History returns the supersede chain through id, oldest first: the entries
// it replaced, itself, and the entries that replaced it. Versions kept from
// a merge conflict (see Reload) come just before the entry that won. Nil if
// id is unknown.
func (s *Store) History(id string) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.recs[id]
	if !ok {
		return nil
	}
	chain := []Entry{e}
	seen := map[string]bool{id: true}
	for p := e.Supersedes; p != "" && !seen[p]; {
		pe, ok := s.recs[p]
		if !ok {
			break
		}
		seen[p] = true
		chain = append(chain, pe)
		p = pe.Supersedes
	}
	slices.Reverse(chain)
	for n := e.SupersededBy; n != "" && !seen[n]; {
		ne, ok := s.recs[n]
		if !ok {
			break
		}
		seen[n] = true
		chain = append(chain, ne)
		n = ne.SupersededBy
	}
	var out []Entry
	for _, c := range chain {
		var side []Entry
		for _, r := range s.recs {
			if r.SupersededBy == c.ID && !seen[r.ID] {
				side = append(side, r)
			}
		}
		slices.SortFunc(side, fileCompare)
		out = append(append(out, side...), c)
	}
	return out
}

// Add stores a new entry. Kind may be an alias (empty is fact), Source
// empty is user; ID, if set, must be unused; Created, Updated, LastUsed and
// Uses are kept if set (imports); the links and Deleted are ignored. The
// text is checked with CleanText (the limit depends on Source); a bad entry
// changes nothing.
//
// If the text duplicates a live entry (see DedupeMinRunes), nothing new is
// stored: the existing entry is refreshed (Updated), takes the stronger of
// the two kinds, the longer text and a pin, and Add returns it with false.
//
// If the store goes over its cap, entries are evicted (kept as tombstones):
// never pinned ones nor the new entry; superseded history first, then the
// weakest kind (fact, lesson, correction, preference), then the least
// recently used or updated. If only pinned entries are left, Add fails with
// ErrFull.
func (s *Store) Add(e Entry) (Entry, bool, error) {
	res, err := s.AddAll([]Entry{e})
	if err != nil {
		return Entry{}, false, err
	}
	return res[0].Entry, res[0].New, res[0].Err
}

// AddAll adds several entries with one write, as Add does for each, later
// ones deduplicated against earlier ones. Entries that fail validation get
// their error in the result; the returned error is for the whole batch
// (file, lock, ErrFull), in which case nothing was stored.
func (s *Store) AddAll(es []Entry) ([]AddResult, error) {
	res := make([]AddResult, len(es))
	for i, e := range es {
		res[i].Entry, res[i].Err = checkNew(e)
	}
	var out []AddResult
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		out = slices.Clone(res)
		var protect []string
		changed := false
		for i := range out {
			if out[i].Err != nil {
				continue
			}
			e, isNew, err := s.addTo(recs, out[i].Entry, now)
			out[i] = AddResult{Entry: e, New: isNew, Err: err}
			if err == nil {
				changed = true
				protect = append(protect, e.ID)
			}
		}
		return protect, changed, nil
	})
	if err != nil {
		return nil, fmt.Errorf("add memory: %w", err)
	}
	for i := range out {
		if out[i].Err != nil {
			out[i].Err = fmt.Errorf("add memory: %w", out[i].Err)
		} else {
			out[i].Entry = s.mustGet(out[i].Entry.ID, out[i].Entry)
		}
	}
	return out, nil
}

// mustGet returns the stored version of an entry just written (eviction
// or a later duplicate in the same batch may have touched it).
func (s *Store) mustGet(id string, fallback Entry) Entry {
	if e, ok := s.Get(id); ok {
		return e
	}
	return fallback
}

// checkNew validates an entry for Add and returns it cleaned.
func checkNew(e Entry) (Entry, error) {
	src, err := checkSource(e.Source)
	if err != nil {
		return e, err
	}
	kind, err := CheckKind(e.Kind)
	if err != nil {
		return e, err
	}
	text, err := CleanText(e.Text, src)
	if err != nil {
		return e, err
	}
	if e.ID != "" && !validID(e.ID) {
		return e, fmt.Errorf("invalid memory ID %q (want letters, digits, '-' and '_')", e.ID)
	}
	return Entry{
		ID: e.ID, Kind: kind, Text: text, Source: src, Pinned: e.Pinned,
		Created: e.Created, Updated: e.Updated, LastUsed: e.LastUsed, Uses: max(e.Uses, 0),
	}, nil
}

// addTo adds a checked entry to recs, or refreshes its duplicate.
func (s *Store) addTo(recs map[string]Entry, e Entry, now time.Time) (Entry, bool, error) {
	form := newDedupeForm(e.Text)
	if id := s.findDuplicate(recs, form); id != "" {
		d := recs[id]
		d.Updated = now
		if e.Kind.Strength() > d.Kind.Strength() {
			d.Kind = e.Kind
		}
		if form.runes > s.formOf(id, d.Text).runes {
			d.Text = e.Text
			s.forms.put(id, form)
		}
		d.Pinned = d.Pinned || e.Pinned
		recs[id] = d
		return d, false, nil
	}
	id, err := newEntryID(recs, e.ID)
	if err != nil {
		return e, false, err
	}
	e.ID = id
	if e.Created.IsZero() {
		e.Created = now
	}
	if e.Updated.IsZero() {
		e.Updated = now
	}
	recs[e.ID] = e
	s.forms.put(e.ID, form)
	return e, true, nil
}

// newEntryID returns the ID of a new entry: id if it is free (ErrExists if
// not), or a fresh random one when id is empty.
func newEntryID(recs map[string]Entry, id string) (string, error) {
	if id != "" {
		if _, taken := recs[id]; taken {
			return "", fmt.Errorf("%w: %s", ErrExists, id)
		}
		return id, nil
	}
	for {
		if id = NewID(); recs[id].ID == "" {
			return id, nil
		}
	}
}

// findDuplicate returns the ID of the live entry form duplicates: an equal
// text if there is one, else the oldest that contains or is contained.
func (s *Store) findDuplicate(recs map[string]Entry, form dedupeForm) string {
	if !s.formsReady {
		for id, e := range recs {
			if e.Live() {
				s.formOf(id, e.Text)
			}
		}
		s.formsReady = true
	}
	var best Entry
	bestEqual := false
	for i := range s.forms.forms {
		f := &s.forms.forms[i]
		if !form.matches(f) {
			continue
		}
		id := s.forms.ids[i]
		e, ok := recs[id]
		if !ok || !e.Live() || e.Text != f.text {
			continue
		}
		equal := f.key == form.key
		switch {
		case best.ID == "",
			equal && !bestEqual,
			equal == bestEqual && fileCompare(e, best) < 0:
			best, bestEqual = e, equal
		}
	}
	return best.ID
}

// formOf returns the dedupe form of an entry's text, cached by ID. Once
// formsReady is set the cache holds every live entry: replace and addTo
// keep it so, and findDuplicate iterates it instead of the entries. A
// change that fails clears formsReady, as addTo may have cached forms of
// texts that were not stored.
func (s *Store) formOf(id, text string) dedupeForm {
	if f, ok := s.forms.get(id); ok && f.text == text {
		return f
	}
	f := newDedupeForm(text)
	s.forms.put(id, f)
	return f
}

// Update changes the text, kind, pin or source of a live entry and bumps
// its Updated time. A change that changes nothing does not write.
func (s *Store) Update(id string, c Change) (Entry, error) {
	var out Entry
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		e, ok := recs[id]
		if !ok || !e.Live() {
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		old := e
		limit := SourceUser
		if c.Source != nil {
			src, err := checkSource(*c.Source)
			if err != nil {
				return nil, false, err
			}
			e.Source, limit = src, src
		}
		if c.Text != nil {
			text, err := CleanText(*c.Text, limit)
			if err != nil {
				return nil, false, err
			}
			e.Text = text
		}
		if c.Kind != nil {
			k, err := CheckKind(*c.Kind)
			if err != nil {
				return nil, false, err
			}
			e.Kind = k
		}
		if c.Pinned != nil {
			e.Pinned = *c.Pinned
		}
		if sameEntry(old, e) {
			out = e
			return nil, false, nil
		}
		e.Updated = now
		recs[id] = e
		out = e
		return []string{id}, true, nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("update memory: %w", err)
	}
	return out, nil
}

// Remove deletes an entry (live or history) by turning it into a
// tombstone, which Restore undoes until it expires.
func (s *Store) Remove(id string) error {
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		e, ok := recs[id]
		if !ok || !e.Deleted.IsZero() {
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		e.Deleted, e.Updated = now, now
		recs[id] = e
		return nil, true, nil
	})
	if err != nil {
		return fmt.Errorf("remove memory: %w", err)
	}
	return nil
}

// Restore undoes a Remove (or an eviction) while the tombstone is kept.
// Restoring an entry that is not deleted does nothing.
func (s *Store) Restore(id string) error {
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		e, ok := recs[id]
		if !ok {
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if e.Deleted.IsZero() {
			return nil, false, nil
		}
		e.Deleted, e.Updated = time.Time{}, now
		recs[id] = e
		return []string{id}, true, nil
	})
	if err != nil {
		return fmt.Errorf("restore memory: %w", err)
	}
	return nil
}

// Supersede replaces an entry with a new one and keeps the old as history:
// the new entry links to it by Supersedes, it to the new one by
// SupersededBy, and it stops being live. If oldID was already superseded,
// the newest entry of its chain is replaced. The new entry takes the kind
// of the entry it replaces when e.Kind is empty, and its pin. It is not
// deduplicated.
func (s *Store) Supersede(oldID string, e Entry) (Entry, error) {
	inheritKind := e.Kind == ""
	ne, err := checkNew(e)
	if err != nil {
		return Entry{}, fmt.Errorf("supersede memory: %w", err)
	}
	err = s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		head, ok := recs[oldID]
		for steps := 0; ok && head.SupersededBy != "" && steps < len(recs); steps++ {
			head, ok = recs[head.SupersededBy]
		}
		if !ok || !head.Live() {
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, oldID)
		}
		id, err := newEntryID(recs, ne.ID)
		if err != nil {
			return nil, false, err
		}
		ne.ID = id
		if inheritKind {
			ne.Kind = head.Kind
		}
		ne.Created, ne.Updated = now, now
		ne.Supersedes = head.ID
		ne.Pinned = ne.Pinned || head.Pinned
		head.SupersededBy, head.Pinned, head.Updated = ne.ID, false, now
		recs[head.ID] = head
		recs[ne.ID] = ne
		return []string{ne.ID}, true, nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("supersede memory: %w", err)
	}
	return s.mustGet(ne.ID, ne), nil
}

// MarkUsed records that entries were recalled: LastUsed is now and Uses
// goes up by one. Unknown or non-live IDs are ignored.
func (s *Store) MarkUsed(ids ...string) error {
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		changed := false
		for _, id := range ids {
			e, ok := recs[id]
			if !ok || !e.Live() {
				continue
			}
			e.LastUsed = now
			e.Uses++
			recs[id] = e
			changed = true
		}
		return nil, changed, nil
	})
	if err != nil {
		return fmt.Errorf("mark memory used: %w", err)
	}
	return nil
}

// Recall ranks the live entries for a query (see Index.Search). The index
// is built on the first call and kept current after that.
func (s *Store) Recall(query string, history []string, opts RecallOptions) []Hit {
	s.mu.Lock()
	if s.index == nil {
		live := slices.DeleteFunc(s.sorted(s.recs), func(e Entry) bool { return !e.Live() })
		s.index = NewIndex()
		s.index.PutAll(live)
	}
	ix := s.index
	s.mu.Unlock()
	return ix.Search(query, history, opts)
}

// Reload reads the file again if it changed since this store last read or
// wrote it, and merges it by ID: an entry changed on both sides keeps the
// newer Updated (on a tie, the file's: a hand edit); if the file's losing
// version has a different text it is kept as superseded history. Entries
// the file no longer has become tombstones (a hand deletion), unless the
// file cannot have known them (it is older than their last change, or
// holds older versions of other entries: a sync tool or an editor wrote a
// stale copy), in which case they are kept. If the file vanished, the store
// writes its entries back. If the file no longer parses, it is left as it
// is, the entries stay, and Reload and Err return an *UnparsableError
// until the file parses again.
//
// Reload is cheap when nothing changed (one stat) and safe to call at any
// time, from any goroutine; a file watcher can call it on every event.
func (s *Store) Reload() error {
	if s.path == "" {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	st, err := durable.Stat(s.path)
	if err == nil && s.disk.exists && st == s.disk.stamp ||
		errors.Is(err, fs.ErrNotExist) && !s.disk.exists && s.unparsable == nil {
		s.mu.Unlock()
		return nil
	}
	if err == nil && s.unparsable != nil && st == s.badStamp {
		u := s.unparsable
		s.mu.Unlock()
		return fmt.Errorf("reload memory %s: %w", s.path, u)
	}
	errBefore := s.errLocked()
	changed, err := s.reloadLocked()
	if err != nil {
		s.ioErr = err
	}
	changed = changed || s.errLocked() != errBefore
	s.mu.Unlock()
	if changed {
		s.notify()
	}
	if err != nil {
		return fmt.Errorf("reload memory %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) reloadLocked() (bool, error) {
	if err := durable.Lock(s.lock); err != nil {
		return false, fmt.Errorf("lock: %w", err)
	}
	defer durable.Unlock(s.lock)
	changed, rewrite, err := s.syncLocked()
	if err == nil && rewrite {
		err = s.writeLocked(s.recs)
	}
	return changed, err
}

// ChangedOnDisk reports whether the file is no longer the version this
// store last read or wrote, so a file watcher can tell another writer's
// change (true: call Reload) from the echo of this store's own write
// (false). The check is a stat; only when the stamp differs is the file
// read and its content compared (a rewrite with identical bytes is no
// change). An in-memory store never changes on disk.
func (s *Store) ChangedOnDisk() bool {
	if s.path == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := durable.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s.disk.exists
	case err != nil:
		return true
	case s.disk.exists && st == s.disk.stamp:
		return false
	}
	data, st, err := readStoreFile(s.path)
	if err != nil || !s.disk.exists || maphash.Bytes(s.seed, data) != s.disk.hash {
		return true
	}
	s.disk.stamp = st
	return false
}

// Close releases the lock file. Reads keep working on what was loaded;
// changes fail with ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.lock != nil {
		return s.lock.Close()
	}
	return nil
}

// change runs one read-modify-write. fn changes recs (a copy of the
// entries, already merged with the file) and returns the IDs to protect
// from eviction and whether it changed anything; an error from fn changes
// nothing. Listeners are notified after the store's lock is released.
func (s *Store) change(fn func(recs map[string]Entry, now time.Time) (protect []string, changed bool, err error)) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	errBefore := s.errLocked()
	changed, err := s.changeLocked(fn)
	changed = changed || s.errLocked() != errBefore
	s.mu.Unlock()
	if changed {
		s.notify()
	}
	return err
}

func (s *Store) changeLocked(fn func(map[string]Entry, time.Time) ([]string, bool, error)) (notify bool, err error) {
	rewrite := false
	if s.path != "" {
		if err := durable.Lock(s.lock); err != nil {
			return false, fmt.Errorf("lock %s: %w", s.path, err)
		}
		defer durable.Unlock(s.lock)
		notify, rewrite, err = s.syncLocked()
		if err != nil {
			s.ioErr = err
			return notify, fmt.Errorf("read %s: %w", s.path, err)
		}
	}
	now := s.clock()
	work := maps.Clone(s.recs)
	defer func() {
		if err != nil {
			// fn may have cached dedupe forms of texts that were not stored:
			// check the cache against the entries before it is used again.
			s.formsReady = false
		}
	}()
	protect, changed, err := fn(work, now)
	if err != nil || !changed && !rewrite {
		return notify, err
	}
	for id, e := range work {
		if !e.Deleted.IsZero() && now.Sub(e.Deleted) > s.ttl {
			delete(work, id)
		}
	}
	victims := evictionVictims(work, s.max, protect)
	if after := storedCount(work) - len(victims); after > s.max && after > storedCount(s.recs) {
		return notify, fmt.Errorf("%w: %d entries would exceed the cap of %d (pinned entries and the ones being added are never evicted)", ErrFull, after, s.max)
	}
	for _, id := range victims {
		e := work[id]
		e.Deleted, e.Updated = now, now
		work[id] = e
	}
	if s.path != "" {
		if err := s.writeLocked(work); err != nil {
			return notify, err
		}
	}
	s.replace(work)
	return true, nil
}

// clock is the store's time, in UTC and to the millisecond so the file
// stays readable.
func (s *Store) clock() time.Time { return s.now().Round(0).UTC().Truncate(time.Millisecond) }

// syncLocked brings s.recs up to date with the file; it needs s.mu and the
// file lock. It reports whether the entries changed and whether the file
// should be rewritten (legacy shape; vanished or set aside while the store
// has entries).
func (s *Store) syncLocked() (changed, rewrite bool, err error) {
	st, err := durable.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		vanished := s.disk.exists || s.unparsable != nil
		s.parsedLocked()
		s.disk = diskState{}
		return false, vanished && len(s.recs) > 0, nil
	}
	if err != nil {
		return false, false, err
	}
	if s.unparsable != nil && st == s.badStamp {
		return false, false, s.unparsable
	}
	if s.disk.exists && st == s.disk.stamp {
		s.parsedLocked()
		return false, false, nil
	}
	data, st, err := readStoreFile(s.path)
	if err != nil {
		return false, false, err
	}
	h := maphash.Bytes(s.seed, data)
	if s.disk.exists && h == s.disk.hash {
		s.disk.stamp = st
		s.parsedLocked()
		return false, false, nil
	}
	entries, legacy, perr := ParseFile(data, st.ModTime().UTC())
	for try := 0; perr != nil && !errors.Is(perr, ErrUnsupportedVersion) && try < 3; try++ {
		time.Sleep(settleDelay)
		again, st2, err := readStoreFile(s.path)
		if err != nil {
			return false, false, err
		}
		if string(again) == string(data) {
			break
		}
		data, st, h = again, st2, maphash.Bytes(s.seed, again)
		entries, legacy, perr = ParseFile(data, st.ModTime().UTC())
	}
	if errors.Is(perr, ErrUnsupportedVersion) {
		return false, false, perr
	}
	if perr != nil && s.opened {
		s.unparsable, s.badStamp = &UnparsableError{Path: s.path, Err: perr}, st
		return false, false, s.unparsable
	}
	if perr != nil {
		saved, err := setAside(s.path, "corrupt", s.clock())
		if err != nil {
			return false, false, fmt.Errorf("set aside unreadable file: %w", err)
		}
		s.corrupt = &CorruptError{Path: s.path, SavedAs: saved, Err: perr}
		s.disk = diskState{}
		return false, len(s.recs) > 0, nil
	}
	if legacy {
		if _, err := copyAside(s.path, "legacy", data, s.clock()); err != nil {
			return false, false, fmt.Errorf("back up legacy file: %w", err)
		}
	}
	merged := mergeDisk(s.recs, entries, s.disk.exists, st.ModTime(), s.clock())
	changed = !sameRecords(s.recs, merged)
	if changed {
		s.replace(merged)
	}
	s.order = make([]string, 0, len(entries))
	for _, e := range entries {
		s.order = append(s.order, e.ID)
	}
	s.disk = diskState{exists: true, stamp: st, hash: h}
	s.ioErr, s.unparsable = nil, nil
	return changed, legacy, nil
}

// parsedLocked ends the unparsable state: the file is readable again.
func (s *Store) parsedLocked() {
	if s.unparsable != nil && errors.Is(s.ioErr, s.unparsable) {
		s.ioErr = nil
	}
	s.unparsable = nil
}

// writeLocked writes recs to the file; it needs s.mu and the file lock.
func (s *Store) writeLocked(recs map[string]Entry) error {
	data := s.encode(recs)
	if len(data) > MaxFileSize {
		return fmt.Errorf("save %s: %w: %d bytes, at most %d", s.path, ErrTooLarge, len(data), MaxFileSize)
	}
	st, err := writeStoreFile(s.path, data)
	if err != nil {
		s.ioErr = fmt.Errorf("save memories: %w", err)
		return s.ioErr
	}
	s.disk = diskState{exists: true, stamp: st, hash: maphash.Bytes(s.seed, data)}
	s.ioErr = nil
	return nil
}

// replace installs a new set of records and keeps the index and the dedupe
// cache in step.
func (s *Store) replace(recs map[string]Entry) {
	old := s.recs
	s.recs = recs
	for id := range old {
		if _, ok := recs[id]; !ok {
			s.forms.remove(id)
			if s.index != nil {
				s.index.Delete(id)
			}
		}
	}
	if s.index == nil && !s.formsReady {
		return
	}
	for id, e := range recs {
		if o, ok := old[id]; ok && sameEntry(o, e) {
			continue
		}
		if s.formsReady {
			if e.Live() {
				s.formOf(id, e.Text)
			} else {
				s.forms.remove(id)
			}
		}
		if s.index == nil {
			continue
		}
		if e.Live() {
			s.index.Put(e)
		} else {
			s.index.Delete(id)
		}
	}
}

// sorted returns recs in file order (see sortedIDs).
func (s *Store) sorted(recs map[string]Entry) []Entry {
	ids := s.sortedIDs(recs)
	out := make([]Entry, len(ids))
	for i, id := range ids {
		out[i] = recs[id]
	}
	return out
}

// sortedIDs returns the IDs of recs in file order: by Created; entries
// created at the same time (to the millisecond) keep the order they had
// in the file, and new ones follow them, by ID. So entries added one after
// another list in the order they were added, whichever process added them.
// The order is remembered for the next call.
func (s *Store) sortedIDs(recs map[string]Entry) []string {
	type key struct {
		created int64
		id      string
	}
	keys := make([]key, 0, len(recs))
	for _, id := range s.order {
		if e, ok := recs[id]; ok {
			keys = append(keys, key{e.Created.UnixNano(), id})
		}
	}
	if known := len(keys); known < len(recs) {
		had := make(map[string]bool, known)
		for _, k := range keys {
			had[k.id] = true
		}
		for id, e := range recs {
			if !had[id] {
				keys = append(keys, key{e.Created.UnixNano(), id})
			}
		}
		slices.SortFunc(keys[known:], func(a, b key) int { return cmp.Compare(a.id, b.id) })
	}
	slices.SortStableFunc(keys, func(a, b key) int { return cmp.Compare(a.created, b.created) })
	order := make([]string, len(keys))
	for i, k := range keys {
		order[i] = k.id
	}
	s.order = order
	return order
}

// encode renders recs as the file, reusing the text of unchanged entries
// and the buffer of the last write.
func (s *Store) encode(recs map[string]Entry) []byte {
	ids := s.sortedIDs(recs)
	parts := make([][]byte, len(ids))
	size := 0
	for i, id := range ids {
		e := recs[id]
		c, ok := s.enc[id]
		if !ok || !sameEntry(c.entry, e) {
			c = encodedEntry{entry: e, text: jsonEntry(nil, e)}
			s.enc[id] = c
		}
		parts[i] = c.text
		size += len(c.text) + 1
	}
	if len(s.enc) > len(recs) {
		for id := range s.enc {
			if _, ok := recs[id]; !ok {
				delete(s.enc, id)
			}
		}
	}
	s.buf = joinFile(s.buf[:0], parts, size)
	return s.buf
}

// fileCompare orders entries oldest first, then by ID.
func fileCompare(a, b Entry) int {
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// sameEntry reports whether two versions of an entry are identical.
func sameEntry(a, b Entry) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Text == b.Text && a.Source == b.Source &&
		a.Pinned == b.Pinned && a.Uses == b.Uses && a.Supersedes == b.Supersedes &&
		a.SupersededBy == b.SupersededBy && a.Created.Equal(b.Created) &&
		a.Updated.Equal(b.Updated) && a.LastUsed.Equal(b.LastUsed) && a.Deleted.Equal(b.Deleted)
}

func sameRecords(a, b map[string]Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for id, e := range a {
		if o, ok := b[id]; !ok || !sameEntry(e, o) {
			return false
		}
	}
	return true
}
