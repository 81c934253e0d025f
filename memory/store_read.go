package memory

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"engram/memory/durable"
)

// settleTries is how many times a store reads a file that does not parse,
// or is empty while the store has entries, waiting settleDelay between
// reads until two reads agree, before it judges the file: an editor that
// saves in place may have been caught mid-write.
const settleTries = 5

// snapshot is what the readers of a Store see: the records and the error
// state as a write left them. It is never changed once published; the
// next write publishes a new one. Its file order is worked out by the
// first read that needs it.
type snapshot struct {
	gen  uint64           // the Store.gen of recs
	recs map[string]Entry // shared with the store's writer, which never changes it
	hint []string         // the store's file order when published (see fileOrder)
	err  error            // what Err returns
	seen Vector           // a copy of the store's Vector

	sortOnce sync.Once
	sorted   atomic.Bool // ids and entries are set
	ids      []string    // recs in file order
	entries  []Entry     // recs in file order; shared by readers, never changed
}

// inOrder returns the records in file order (see fileOrder), sorted on the
// first call. The slice is shared: callers copy it before changing it.
func (sn *snapshot) inOrder() []Entry {
	sn.sortOnce.Do(func() {
		sn.ids = fileOrder(sn.hint, sn.recs)
		sn.entries = make([]Entry, len(sn.ids))
		for i, id := range sn.ids {
			sn.entries[i] = sn.recs[id]
		}
		sn.sorted.Store(true)
	})
	return sn.entries
}

// liveInOrder returns a new slice of the live records in file order,
// without keeping the sorted records in the snapshot when it has not yet
// (an index built for one search of a big store need not hold every
// entry twice).
func (sn *snapshot) liveInOrder() []Entry {
	if sn.sorted.Load() {
		return liveOnly(sn.entries)
	}
	ids := fileOrder(sn.hint, sn.recs)
	out := make([]Entry, 0, len(ids))
	for _, id := range ids {
		if e := sn.recs[id]; e.Live() {
			out = append(out, e)
		}
	}
	return out
}

// view is the snapshot readers are served from.
func (s *Store) view() *snapshot { return s.snap.Load() }

// Err is the store's error state, nil when all is well: an
// *UnparsableError while the file does not parse, or else the error of the
// last failed read or write of the file (until one succeeds).
func (s *Store) Err() error { return s.view().err }

// List returns the live entries (not deleted, not superseded) in file
// order: oldest first; entries created in the same millisecond in the
// order they were added.
func (s *Store) List() []Entry { return liveOnly(s.view().inOrder()) }

// liveOnly returns a new slice of the live entries of es.
func liveOnly(es []Entry) []Entry {
	out := make([]Entry, 0, len(es))
	for _, e := range es {
		if e.Live() {
			out = append(out, e)
		}
	}
	return out
}

// All returns every record in file order, superseded history and
// tombstones included.
func (s *Store) All() []Entry { return slices.Clone(s.view().inOrder()) }

// Len is the number of live entries.
func (s *Store) Len() int {
	n := 0
	for _, e := range s.view().recs {
		if e.Live() {
			n++
		}
	}
	return n
}

// Get returns the entry with the ID, live or not (check Entry.Live).
func (s *Store) Get(id string) (Entry, bool) {
	e, ok := s.view().recs[id]
	return e, ok
}

// Seen returns a copy of what the store has seen of each device's changes.
func (s *Store) Seen() Vector { return cloneVector(s.view().seen) }

// History returns the supersede chain through id, oldest first: the entries
// it replaced, itself, and the entries that replaced it. Versions kept from
// a merge conflict (see Reload) come just before the entry that won. Nil if
// id is unknown.
func (s *Store) History(id string) []Entry {
	recs := s.view().recs
	e, ok := recs[id]
	if !ok {
		return nil
	}
	seen := map[string]bool{id: true}
	chain := follow(recs, e, seen, func(x Entry) string { return x.Supersedes })
	slices.Reverse(chain)
	chain = append(chain, follow(recs, e, seen, func(x Entry) string { return x.SupersededBy })[1:]...)
	var out []Entry
	for _, c := range chain {
		var side []Entry
		for _, r := range recs {
			if r.SupersededBy == c.ID && !seen[r.ID] {
				side = append(side, r)
			}
		}
		slices.SortFunc(side, historyCompare)
		out = append(append(out, side...), c)
	}
	return out
}

// Recall ranks the live entries for a query (see EntryIndex.Search). The
// index is built on the first call and kept current after that.
func (s *Store) Recall(query string, history []string, opts RecallOptions) []Hit {
	return s.searchIndex().Search(query, history, opts)
}

// searchIndex is the store's index of its live entries, built on the first
// call from the published snapshot and brought up to date by every
// snapshot published after that (see publish).
func (s *Store) searchIndex() *EntryIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		s.index = NewEntryIndex()
		s.index.PutAll(s.view().liveInOrder())
		s.index.SetEmbedder(s.embedder)
	}
	return s.index
}

// clock is the store's time, in UTC and to the millisecond so the file
// stays readable.
func (s *Store) clock() time.Time { return s.now().Round(0).UTC().Truncate(time.Millisecond) }

// openLocked reads the journal and the file, merges them and the conflict
// copies, and writes the file if it lacks anything.
func (s *Store) openLocked() error {
	unlock, err := s.lockFiles()
	if err != nil {
		return err
	}
	defer unlock()
	durable.RemoveStaleTemps(s.path)
	forked := false // the journal lost records of the replica (see takeJournalLocked)
	if s.jr != nil {
		jrecs, err := s.jr.read()
		if err != nil {
			return err
		}
		if forked, err = s.takeJournalLocked(jrecs); err != nil {
			return err
		}
		now := s.clock()
		recs := make(map[string]Entry, len(jrecs))
		s.openSaw = make(map[string]Vector, len(jrecs))
		for id, r := range jrecs {
			s.openSaw[id] = r.Seen
			if !r.Deleted.IsZero() && now.Sub(r.Deleted) > s.ttl {
				continue // a deletion old enough to be forgotten
			}
			recs[id] = r.Entry
		}
		s.replace(recs)
	}
	defer func() { s.openSaw = nil }()
	_, rewrite, err := s.syncLocked()
	if err != nil && !errors.Is(err, ErrUnparsable) {
		return err
	}
	if s.jr != nil && !s.vouched && s.jr.head.Replica == s.device && s.jr.head.Since > s.fileSeen[s.device] {
		// No file, or one that does not parse, backs what the journal's
		// compaction dropped.
		if err := s.mintLocked(nil); err != nil {
			return err
		}
	}
	if err != nil {
		return nil // Err says so; the journal's entries are served
	}
	merged, err := s.mergeConflictCopiesLocked()
	if err != nil {
		return err
	}
	if rewrite || merged || forked {
		if err := s.writeLocked(); err != nil {
			// The file is readable: the store opens, and Err says why it
			// could not be brought up to date (a full disk, a read-only
			// file, an upgrade that would pass MaxFileSize).
			s.ioErr = err
		}
	}
	s.compactJournalLocked(s.recs, s.clock())
	return nil
}

// sortedIDs returns the IDs of recs in file order (see fileOrder) and
// remembers the order for the next call; it needs the write turn.
func (s *Store) sortedIDs(recs map[string]Entry) []string {
	s.order = fileOrder(s.order, recs)
	return s.order
}

// fileOrder returns the IDs of recs in file order: by Created; entries
// created at the same time (to the millisecond) keep the order they have
// in known (the order last read, written or listed), and new ones follow
// them, by ID. So entries added one after another list in the order they
// were added, whichever process added them. It returns a new slice.
func fileOrder(known []string, recs map[string]Entry) []string {
	type key struct {
		created int64
		id      string
	}
	keys := make([]key, 0, len(recs))
	for _, id := range known {
		if e, ok := recs[id]; ok {
			keys = append(keys, key{e.Created.UnixNano(), id})
		}
	}
	if n := len(keys); n < len(recs) {
		had := make(map[string]bool, n)
		for _, k := range keys {
			had[k.id] = true
		}
		for id, e := range recs {
			if !had[id] {
				keys = append(keys, key{e.Created.UnixNano(), id})
			}
		}
		slices.SortFunc(keys[n:], func(a, b key) int { return cmp.Compare(a.id, b.id) })
	}
	slices.SortStableFunc(keys, func(a, b key) int { return cmp.Compare(a.created, b.created) })
	order := make([]string, len(keys))
	for i, k := range keys {
		order[i] = k.id
	}
	return order
}

// fileCompare orders entries oldest first, then by ID.
func fileCompare(a, b Entry) int {
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// historyCompare orders the versions beside a chain (texts a person's
// edit replaced, the losers of concurrent edits) by when each was written,
// then as in the file, so History reads in time order on every device.
func historyCompare(a, b Entry) int {
	if c := a.Updated.Compare(b.Updated); c != 0 {
		return c
	}
	return fileCompare(a, b)
}

// follow is e and the versions reached from it through next, in the order
// reached, stopping at a missing version or one already in seen (which it
// fills in).
func follow(recs map[string]Entry, e Entry, seen map[string]bool, next func(Entry) string) []Entry {
	out := []Entry{e}
	for id := next(e); id != "" && !seen[id]; {
		x, ok := recs[id]
		if !ok {
			break
		}
		seen[id] = true
		out = append(out, x)
		id = next(x)
	}
	return out
}
