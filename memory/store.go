package memory

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
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
	// device's ID (device-id), the journal of its changes (journal/), which
	// names the replica the store stamps its changes with, what Remove
	// deleted (trash/) and the conflict copies merged and files repaired
	// (backups/). Empty: no journal, a trash in memory only, and a replica
	// of its own for every Open, since nothing proves across runs what it
	// once held.
	StateDir string
	// Device, when set, is the replica in this store's Revs, for tests and
	// callers that vouch for it themselves: a store never replaces it. By
	// default the journal names the replica (see StateDir).
	Device string
	// Machine is this machine's fingerprint (default: derived from the
	// system's machine ID, see DeviceID), for tests that play several
	// machines.
	Machine string
	// JournalKeep is how long a change stays in the journal once the file
	// holds it (default DefaultJournalKeep).
	JournalKeep time.Duration
	// Embedder, when set, adds a dense signal to recall (see
	// EntryIndex.SetEmbedder; Builtin is the built-in one). Nil: words only.
	Embedder Embedder
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
// if another writer changed it, merges it (see Vector), applies the
// change, journals it and replaces the file atomically. So writers in
// several goroutines, Stores, processes or devices never lose each other's
// entries.
//
// All methods are safe for concurrent use. Reads (List, All, Len, Get,
// History, Err, Seen, Usage, Recall, Complete) are served from the
// snapshot the last write published and never wait for a write, not even
// one waiting for another process's lock. Writes (the changes, Reload,
// Repair, ChangedOnDisk, Close) take the write turn one at a time.
// Listeners registered with OnChange run after the change, in the
// goroutine that made it, with no lock held.
type Store struct {
	path string // "" for an in-memory store
	max  int
	ttl  time.Duration
	now  func() time.Time
	seed maphash.Seed

	device   string // the replica this store stamps its changes with
	base     string // the device ID new replicas are named after
	machine  string // this machine's fingerprint
	vouched  bool   // device was given in Options: never replaced
	stateDir string
	jr       *journal        // nil without a StateDir
	dirLock  *os.File        // the file's directory, locked when there is no journal (nil on Windows)
	lock     *durable.Locker // the lock on <path>.lock; nil in memory

	// snap is what readers see; only a writer in its turn stores it.
	snap atomic.Pointer[snapshot]

	// writeTurn is held by the one write under way, across the file locks,
	// the read and merge of the file, fsync and rename; it guards the
	// fields below it. Methods named ...Locked need it.
	writeTurn  sync.Mutex
	seen       Vector            // what the records have seen of each device's changes
	forked     map[string]bool   // replicas two machines stamped with (see forkedLocked)
	fileSeen   Vector            // the Vector of the file as last read or written
	counter    uint64            // the last counter of this device's Revs
	issued     map[string]uint64 // the highest counter of the replica's changes of each entry
	top        uint64            // the highest counter the replica issued (or the journal's Since)
	openSaw    map[string]Vector // at Open, what the journal's record of each entry had seen
	recs       map[string]Entry  // never changed once installed by replace: a snapshot shares it
	gen        uint64            // counts the record sets replace installed
	forms      formSet           // dedupe normal forms by ID (see formOf)
	formsReady bool
	enc        map[string]encodedEntry // file text of each entry, reused while it is unchanged
	order      []string                // IDs in file order as last read, written or listed
	buf        []byte                  // the file as last encoded, reused by the next write
	disk       diskState
	unparsable *UnparsableError // the file changed after Open into something that does not parse
	badStamp   durable.Stamp    // the stamp of that file, so it is parsed once
	opened     bool             // Open has read the file: from now on an unparsable file is left alone
	ioErr      error
	closed     bool
	memTrash   []Trashed // the trash of a store without a StateDir (see trash.go)

	// mu guards the fields below it. It is held only for work in memory,
	// never across a file lock or I/O.
	mu        sync.Mutex
	index     *EntryIndex // nil until the first Recall; follows the published snapshots
	embedder  Embedder    // the index's, see SetEmbedder
	merged    MergeReport
	listeners []func()
}

func newStore(opts Options) *Store {
	s := &Store{
		max:    opts.MaxEntries,
		ttl:    opts.TombstoneTTL,
		now:    opts.Now,
		seed:   maphash.MakeSeed(),
		recs:   map[string]Entry{},
		enc:    map[string]encodedEntry{},
		seen:   Vector{},
		forked: map[string]bool{},

		device:   opts.Device,
		base:     hostDevice(),
		machine:  opts.Machine,
		vouched:  opts.Device != "",
		stateDir: opts.StateDir,
		issued:   map[string]uint64{},
		embedder: opts.Embedder,
	}
	if s.device == "" {
		s.device = newReplica(s.base)
	}
	if s.machine == "" {
		s.machine = machineFingerprint()
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
	s.snap.Store(&snapshot{recs: s.recs})
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
	s.beginWrite()
	defer s.endWrite()
	if err := s.openLocked(); err != nil {
		s.closeFiles()
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	s.opened = true
	s.pruneTrashLocked()
	return s, nil
}

// openState reads the device ID and opens the journal in opts.StateDir
// (openLocked reads its replica).
func (s *Store) openState(opts Options) error {
	if !validID(s.device) {
		return fmt.Errorf("device %q: %w", s.device, errBadDevice)
	}
	if opts.StateDir == "" {
		return nil
	}
	if !s.vouched {
		d, err := deviceID(opts.StateDir, s.machine)
		if err != nil {
			return err
		}
		s.base = d
	}
	jr, err := openJournal(opts.StateDir, s.path, opts.JournalKeep)
	if err != nil {
		return err
	}
	s.jr = jr
	return nil
}

// NewInMemory returns a store without a file, for tests and benchmarks.
func NewInMemory(opts Options) *Store { return newStore(opts) }

// Path is the store's file, absolute and with symlinks resolved; "" for an
// in-memory store.
func (s *Store) Path() string { return s.path }

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

// Close releases the lock file. Reads keep working on what was loaded;
// changes fail with ErrClosed.
func (s *Store) Close() error {
	s.beginWrite()
	defer s.endWrite()
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
