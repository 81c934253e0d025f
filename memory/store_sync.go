package memory

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"maps"
	"slices"
	"time"

	"engram/memory/durable"
)

// Reload reads the file again if it changed since this store last read or
// wrote it, and merges it by ID with the rules of every merge (see
// mergeCopy and the package doc): the version that saw the other wins;
// concurrent edits keep the loser's text as history; an entry the file
// lacks is a deletion (by hand) only if the file's "seen" vector shows it
// had seen that entry's version, and otherwise it stays and is written
// back. If the file vanished, the store writes its entries back. If the
// file no longer parses, it is left as it is, the entries stay, and Reload
// and Err return an *UnparsableError until the file parses again.
//
// Reload also merges conflict copies beside the file (see Open). It is
// cheap when nothing changed (a stat and a directory listing) and safe to
// call at any time, from any goroutine; a file watcher can call it on
// every event.
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
	if (err == nil && s.disk.exists && st == s.disk.stamp ||
		errors.Is(err, fs.ErrNotExist) && !s.disk.exists && s.unparsable == nil) &&
		len(s.conflictCopies()) == 0 {
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
	unlock, err := s.lockFiles()
	if err != nil {
		return false, err
	}
	defer unlock()
	changed, rewrite, err := s.syncLocked()
	if err == nil {
		var merged bool
		merged, err = s.mergeConflictCopiesLocked()
		changed, rewrite = changed || merged, rewrite || merged
	}
	if err == nil && rewrite {
		err = s.writeLocked(s.recs)
	}
	return changed, err
}

// lockFiles takes the journal's lock, then the file's, and returns the
// function that releases them. The journal's lock lives in the state
// directory, where nobody tidies, so the processes of this device stay in
// turn even if memory.json.lock is deleted underneath them.
func (s *Store) lockFiles() (func(), error) {
	if s.jr != nil {
		if err := s.jr.lock.Lock(); err != nil {
			return nil, err
		}
	}
	if err := s.lock.Lock(); err != nil {
		if s.jr != nil {
			s.jr.lock.Unlock()
		}
		return nil, err
	}
	return func() {
		s.lock.Unlock()
		if s.jr != nil {
			s.jr.lock.Unlock()
		}
	}, nil
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
	if len(s.conflictCopies()) > 0 {
		return true // a sync tool's conflict copy to merge
	}
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
	if err != nil || !s.disk.exists || maphash.Bytes(s.seed, data) != s.disk.hash || s.unparsable != nil {
		return true // (a file put back as it was before it broke ends the error state: Reload it)
	}
	s.disk.stamp = st
	return false
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
	rewrite, toFile := false, true
	if s.path != "" {
		unlock, err := s.lockFiles()
		if err != nil {
			return false, err
		}
		defer unlock()
		notify, rewrite, err = s.syncLocked()
		if err == nil {
			var merged bool
			merged, err = s.mergeConflictCopiesLocked()
			notify, rewrite = notify || merged, rewrite || merged
		}
		switch {
		case errors.Is(err, ErrUnparsable) && s.jr != nil:
			toFile = false // the change goes to the journal only
		case err != nil:
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
	if err := s.evictLocked(work, protect, now); err != nil {
		return notify, err
	}
	seen, counter := cloneVector(s.seen), s.counter
	stamped := s.stampChanges(work, now)
	if s.jr != nil {
		if err := s.jr.append(stamped, now); err != nil {
			s.seen, s.counter = seen, counter
			return notify, err
		}
	}
	if s.path != "" && toFile {
		if err := s.writeLocked(work); err != nil {
			if s.jr == nil {
				s.seen, s.counter = seen, counter
				return notify, err
			}
			// The journal holds the change: it is not lost, and the next
			// write puts it in the file. Err says why the file was not.
		}
		s.compactJournalLocked(work, now)
	}
	s.replace(work)
	return true, nil
}

// stampChanges gives every entry of work that differs from the store's
// records in what is versioned a new Rev of this device (unless it comes
// with a Rev of its own from a merge), and returns the changed entries for
// the journal.
func (s *Store) stampChanges(work map[string]Entry, now time.Time) []Entry {
	var out []Entry
	for id, e := range work {
		o, ok := s.recs[id]
		if ok && sameVersion(o, e) && !o.Rev.IsZero() && o.Rev == e.Rev {
			continue
		}
		if !e.Rev.IsZero() && (!ok || e.Rev != o.Rev) && !handEdited(e) {
			continue // a version merged from a copy keeps its Rev
		}
		e.Rev = s.nextRev(now, e)
		work[id] = e
		out = append(out, e)
	}
	return out
}

// nextRev returns a new Rev of this device for e: its counter, raised past the
// last one it used or saw and, where that is ahead, to the clock in
// milliseconds.
func (s *Store) nextRev(now time.Time, e Entry) Rev {
	n := max(s.counter, s.seen[s.device]) + 1
	if ms := uint64(max(now.UnixMilli(), 0)); ms > n {
		n = ms
	}
	s.counter = n
	s.seen[s.device] = n
	return Rev{Device: s.device, N: n, Sum: versionSum(e)}
}

// clampFuture brings times after now back to now: a clock that was ahead
// when an entry was written must not make it win every later edit.
func clampFuture(es []Entry, now time.Time) {
	for i := range es {
		e := &es[i]
		for _, t := range []*time.Time{&e.Created, &e.Updated, &e.LastUsed, &e.Deleted} {
			if t.After(now) {
				*t = now
			}
		}
	}
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
	s.fileSeen = cloneVector(s.seen)
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
	s.buf = joinFile(s.buf[:0], s.seen, parts, size)
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
		a.Updated.Equal(b.Updated) && a.LastUsed.Equal(b.LastUsed) && a.Deleted.Equal(b.Deleted) && a.Rev == b.Rev
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
