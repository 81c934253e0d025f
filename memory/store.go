package memory

import (
	"errors"
	"fmt"
	"hash/maphash"
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
	// DefaultMaxEntries). Adding over it evicts distilled entries only
	// (see Store.Add); a file over it loads whole.
	MaxEntries int
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
	// TombstoneTTL is how long a deleted entry stays in the file as a
	// tombstone so that other writers and sync tools see the deletion
	// (default DefaultTombstoneTTL).
	TombstoneTTL time.Duration
	// StateDir is this device's own directory for the store, never synced
	// ($XDG_STATE_HOME/engram, resolved by the caller): it holds the
	// device's ID (device-id), the journal of its changes (journal/) and
	// the conflict copies merged and files repaired (backups/). Empty: no
	// journal, and a device ID derived from the host name.
	StateDir string
	// Device is this device's ID in Revs (default: read from, or created
	// in, StateDir), for tests.
	Device string
	// JournalKeep is how long a change stays in the journal once the file
	// holds it (default DefaultJournalKeep).
	JournalKeep time.Duration
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
// entry in memory and writes the whole file on each change: under its
// journal's lock and an exclusive lock on <path>.lock it re-reads the file
// if another writer changed it, merges it (see the package doc), applies
// the change, journals it and replaces the file atomically. So writers in
// several goroutines, Stores, processes or devices never lose each other's
// entries.
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

	device   string
	stateDir string
	jr       *journal // nil without a StateDir
	dirLock  *os.File // the file's directory, locked when there is no journal (nil on Windows)
	seen     Vector   // what the records have seen of each device's changes
	fileSeen Vector   // the Vector of the file as last read or written
	counter  uint64   // the last counter of this device's Revs
	merged   MergeReport

	mu         sync.Mutex
	lock       *durable.Locker // the lock on <path>.lock; nil in memory
	recs       map[string]Entry
	forms      formSet // dedupe normal forms by ID (see formOf)
	formsReady bool
	enc        map[string]encodedEntry // file text of each entry, reused while it is unchanged
	order      []string                // IDs in file order as last read, written or listed
	buf        []byte                  // the file as last encoded, reused by the next write
	index      *Index                  // nil until the first Recall
	disk       diskState
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
		seen: Vector{},

		device:   opts.Device,
		stateDir: opts.StateDir,
	}
	if s.device == "" {
		s.device = hostDevice()
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
// when the store is unusable: the directory, lock file or journal cannot
// be created, the file cannot be read, is larger than MaxFileSize
// (ErrTooLarge) or was written by a newer version (ErrUnsupportedVersion).
//
// With a StateDir, the journal's changes that the file lacks (it was
// replaced by a copy without them, or lost) are put back, and conflict
// copies beside the file are merged (see MergeReport). A file that does
// not parse is never moved, overwritten or read as empty: the store opens
// with what the journal holds and Err returns an *UnparsableError. A file
// of version 1 or in a legacy shape is copied to <path>.legacy-<time> and
// rewritten in the current shape.
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
	s := newStore(opts)
	s.path = abs
	if err := s.openState(opts); err != nil {
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	lf, err := durable.OpenLock(abs + ".lock")
	if err != nil {
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	s.lock = lf
	if s.jr == nil {
		// Without a journal's lock, the directory keeps writers in turn
		// when memory.json.lock is deleted underneath them.
		if s.dirLock, err = durable.OpenDirLock(filepath.Dir(abs)); err != nil {
			lf.Close()
			return nil, fmt.Errorf("open memory %s: %w", abs, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.openLocked(); err != nil {
		s.closeFiles()
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	s.opened = true
	return s, nil
}

// openState reads the device ID and the journal from opts.StateDir.
func (s *Store) openState(opts Options) error {
	if opts.StateDir == "" {
		return nil
	}
	if s.device == hostDevice() && opts.Device == "" {
		d, err := DeviceID(opts.StateDir)
		if err != nil {
			return err
		}
		s.device = d
	}
	if !validID(s.device) {
		return fmt.Errorf("device %q: %w", s.device, errBadDevice)
	}
	jr, err := openJournal(opts.StateDir, s.path, opts.JournalKeep)
	if err != nil {
		return err
	}
	s.jr = jr
	return nil
}

// openLocked reads the journal and the file, merges them and the conflict
// copies, and writes the file if it lacks anything.
func (s *Store) openLocked() error {
	unlock, err := s.lockFiles()
	if err != nil {
		return err
	}
	defer unlock()
	durable.RemoveStaleTemps(s.path)
	if s.jr != nil {
		jrecs, err := s.jr.read()
		if err != nil {
			return err
		}
		now := s.clock()
		for id, r := range jrecs {
			if r.Rev.Device == s.device {
				s.counter = max(s.counter, r.Rev.N)
			}
			if !r.Deleted.IsZero() && now.Sub(r.Deleted) > s.ttl {
				continue // a deletion old enough to be forgotten
			}
			s.recs[id] = r.Entry
		}
	}
	_, rewrite, err := s.syncLocked()
	if errors.Is(err, ErrUnparsable) {
		return nil // Err says so; the journal's entries are served
	}
	if err != nil {
		return err
	}
	merged, err := s.mergeConflictCopiesLocked()
	if err != nil {
		return err
	}
	if rewrite || merged {
		if err := s.writeLocked(s.recs); err != nil {
			// The file is readable: the store opens, and Err says why it
			// could not be brought up to date (a full disk, a read-only
			// file, an upgrade that would pass MaxFileSize).
			s.ioErr = err
		}
	}
	s.compactJournalLocked(s.recs, s.clock())
	return nil
}

// NewInMemory returns a store without a file, for tests and benchmarks.
func NewInMemory(opts Options) *Store { return newStore(opts) }

// Path is the store's file, absolute and with symlinks resolved; "" for an
// in-memory store.
func (s *Store) Path() string { return s.path }

// Err is the store's error state, nil when all is well: an
// *UnparsableError while the file does not parse, or else the error of the
// last failed read or write of the file (until one succeeds).
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errLocked()
}

func (s *Store) errLocked() error {
	if s.unparsable != nil {
		return s.unparsable
	}
	return s.ioErr
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

// Recall ranks the live entries for a query (see Index.Search). The index
// is built on the first call and kept current after that.
func (s *Store) Recall(query string, history []string, opts RecallOptions) []Hit {
	return s.searchIndex().Search(query, history, opts)
}

// searchIndex is the store's index of its live entries, built on the first
// call and kept current by every change after that.
func (s *Store) searchIndex() *Index {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		live := slices.DeleteFunc(s.sorted(s.recs), func(e Entry) bool { return !e.Live() })
		s.index = NewIndex()
		s.index.PutAll(live)
	}
	return s.index
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
	if s.lock == nil {
		return nil
	}
	return s.closeFiles()
}

// closeFiles closes the lock files.
func (s *Store) closeFiles() error {
	if s.dirLock != nil {
		s.dirLock.Close()
	}
	if s.jr != nil {
		s.jr.lock.Close()
	}
	return s.lock.Close()
}
