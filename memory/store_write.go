package memory

import (
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"path/filepath"
	"time"

	"engram/memory/durable"
)

// beginWrite takes the write turn. If a read sorted the published records
// since the last write, their order is the one remembered (as if the
// read had stored it), so the next write keeps it.
func (s *Store) beginWrite() {
	s.writeTurn.Lock()
	if sn := s.snap.Load(); sn.sorted.Load() {
		s.order = sn.ids
	}
}

// endWrite publishes what the write left and gives up the write turn.
func (s *Store) endWrite() {
	s.publish()
	s.writeTurn.Unlock()
}

// publish swaps in a snapshot of the records and the error state, unless
// the published one already shows them, and brings the search index up
// to date with it; it needs the write turn.
func (s *Store) publish() {
	old := s.snap.Load()
	err := s.errLocked()
	if old.gen == s.gen && old.err == err && sameOrder(old.hint, s.order) && maps.Equal(old.seen, s.seen) {
		return
	}
	sn := &snapshot{gen: s.gen, recs: s.recs, hint: s.order, err: err, seen: cloneVector(s.seen)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index != nil && old.gen != sn.gen {
		s.index.update(old.recs, sn.recs)
	}
	s.snap.Store(sn)
}

// sameOrder reports whether a and b are the same slice.
func sameOrder(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (s *Store) errLocked() error {
	if s.unparsable != nil {
		return s.unparsable
	}
	return s.ioErr
}

// lockFiles takes the journal's lock (or, without a journal, the lock of
// the file's directory, where the system has one), then the file's, and
// returns the function that releases them. Neither of the first two can be
// deleted underneath the writers, so the processes of this device stay in
// turn even if memory.json.lock is.
func (s *Store) lockFiles() (func(), error) {
	var outer func() error // the journal's lock, or else the directory's
	switch {
	case s.jr != nil:
		if err := s.jr.lock.Lock(); err != nil {
			return nil, err
		}
		outer = s.jr.lock.Unlock
	case s.dirLock != nil:
		if err := durable.Lock(s.dirLock); err != nil {
			return nil, fmt.Errorf("lock %s: %w", filepath.Dir(s.path), err)
		}
		outer = func() error { return durable.Unlock(s.dirLock) }
	}
	if err := s.lock.Lock(); err != nil {
		if outer != nil {
			outer()
		}
		return nil, err
	}
	return func() {
		s.lock.Unlock()
		if outer != nil {
			outer()
		}
	}, nil
}

// change runs one read-modify-write. fn changes recs (a copy of the
// entries, already merged with the file) and returns the IDs to protect
// from eviction and whether it changed anything; an error from fn changes
// nothing. Listeners are notified after the write turn is given up.
//
// In the write turn, under the journal's lock and an exclusive lock on
// <file>.lock (see lockFiles), the store re-reads the file if it changed
// since its last read or write (a stat decides, so this is cheap), merges
// it, applies the change, journals it and replaces the file atomically
// (package durable: temporary file in the same directory, fsync, rename,
// fsync of the directory where supported; mode 0600, directory 0700). So
// goroutines, Stores and processes writing one file never lose each
// other's entries, and a writer killed at any point leaves either the old
// or the new file. A change that fails (bad input, a file over
// MaxFileSize, a full disk or read-only file without a journal) changes
// nothing, in memory or on disk. With a journal, a change the file could
// not be written with is kept in the journal and in memory, and Err says
// why the file lacks it until a write succeeds: a command that made it
// must report that. Readers see the result when endWrite publishes it.
func (s *Store) change(fn func(recs map[string]Entry, now time.Time) (protect []string, changed bool, err error)) error {
	changed, err := func() (bool, error) {
		s.beginWrite()
		defer s.endWrite()
		if s.closed {
			return false, ErrClosed
		}
		errBefore := s.errLocked()
		changed, err := s.changeLocked(fn)
		return changed || s.errLocked() != errBefore, err
	}()
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
	seen, counter, old := cloneVector(s.seen), s.counter, s.recs
	installed := false
	undo := func() {
		s.seen, s.counter = seen, counter
		if installed {
			s.replace(old)
			s.disk = diskState{} // what was merged from the file meanwhile: read it again
		}
	}
	stamped := s.stampChanges(work, now)
	var data []byte
	if s.path != "" && toFile {
		if data, err = s.encodeChecked(work); err != nil {
			undo()
			return notify, err // refused before the journal holds it
		}
	}
	if s.jr != nil {
		if err := s.jr.append(stamped, s.seen, now); err != nil {
			undo()
			return notify, err
		}
	}
	if s.path != "" && toFile {
		err := s.writeData(data)
		if errors.Is(err, errChangedUnderWrite) {
			// Another writer (an editor saving in place) changed the file
			// since it was read: merge it again, never write over it.
			s.replace(work)
			installed = true
			err = s.writeLocked()
			work = s.recs
		}
		if err != nil && s.jr == nil {
			undo()
			return notify, err
		}
		// With a journal, the journal holds the change: it is not lost,
		// and the next write puts it in the file. Err says why the file
		// was not.
		s.compactJournalLocked(work, now)
	}
	if !installed {
		s.replace(work)
	}
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
		e.Prev = e.Rev // the version changed, or none for a new entry
		if ok {
			e.Prev = o.Rev
		}
		e.Rev = s.nextRev(now, e)
		work[id] = e
		out = append(out, e)
	}
	return out
}

// nextRev returns a new Rev of the store's replica for e: its counter,
// raised past the last one it used or saw and, where that is ahead, to
// the clock in milliseconds. Raising the replica's entry in the Vector
// claims no more than the store holds: every change of the replica is in
// its records, and in its journal before the file is written (see
// journal, vetCopyLocked).
func (s *Store) nextRev(now time.Time, e Entry) Rev {
	n := max(s.counter, s.seen[s.device]) + 1
	if ms := uint64(max(now.UnixMilli(), 0)); ms > n {
		n = ms
	}
	s.counter, s.top = n, n
	s.seen[s.device] = n
	s.issued[e.ID] = n
	return Rev{Device: s.device, N: n, Sum: versionSum(e)}
}

// errChangedUnderWrite: the file is no longer the version the store read.
var errChangedUnderWrite = errors.New("the file changed while it was being written")

// writeTries is how many times a write merges a file that changed under
// it again before it gives up.
const writeTries = 4

// writeLocked writes the records to the file; it needs the write turn and
// the file lock. A file that changed since it was read is merged again
// first (see writeData).
func (s *Store) writeLocked() error {
	for try := 1; ; try++ {
		data, err := s.encodeChecked(s.recs)
		if err != nil {
			return err
		}
		err = s.writeData(data)
		if !errors.Is(err, errChangedUnderWrite) || try == writeTries {
			return err
		}
		if _, _, err := s.syncLocked(); err != nil {
			return err
		}
	}
}

// encodeChecked renders recs as the file, or fails with ErrTooLarge.
func (s *Store) encodeChecked(recs map[string]Entry) ([]byte, error) {
	data := s.encode(recs)
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("save %s: %w: %d bytes, at most %d", s.path, ErrTooLarge, len(data), MaxFileSize)
	}
	return data, nil
}

// writeData replaces the file with data, the encoding of the records about
// to be installed; it needs the write turn and the file lock. Right before
// it does, it checks that the file is still the version the store read
// (its stamp: size, times, inode), and fails with errChangedUnderWrite if
// it is not. A failure is kept for Err until a write succeeds.
func (s *Store) writeData(data []byte) error {
	read := s.disk
	unchanged := func() error {
		if st, err := durable.Stat(s.path); read.exists && (err != nil || st != read.stamp) || !read.exists && err == nil {
			return errChangedUnderWrite
		}
		return nil
	}
	st, err := writeStoreFile(s.path, data, unchanged)
	if err != nil {
		s.ioErr = fmt.Errorf("save memories: %w", err)
		return s.ioErr
	}
	s.disk = diskState{exists: true, stamp: st, hash: maphash.Bytes(s.seed, data)}
	s.fileSeen = cloneVector(s.seen)
	s.ioErr = nil
	return nil
}

// replace installs a new set of records, which nobody changes after
// that, and keeps the dedupe cache in step; it needs the write turn. The
// readers see them once the write publishes them.
func (s *Store) replace(recs map[string]Entry) {
	old := s.recs
	s.recs = recs
	s.gen++
	for id := range old {
		if _, ok := recs[id]; !ok {
			s.forms.remove(id)
		}
	}
	if !s.formsReady {
		return
	}
	for id, e := range recs {
		if o, ok := old[id]; ok && sameEntry(o, e) {
			continue
		}
		if e.Live() {
			s.formOf(id, e.Text)
		} else {
			s.forms.remove(id)
		}
	}
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
	s.buf = joinFile(s.buf[:0], s.seen, s.forked, parts, size)
	return s.buf
}

// compactJournalLocked drops from the journal the changes the file holds
// (or, having seen them, replaced or deleted for good) and has held for the
// journal's keep. A failure is left for the next
// time: the journal only grows.
func (s *Store) compactJournalLocked(recs map[string]Entry, now time.Time) {
	if s.jr == nil || s.jr.lines < s.jr.checkAt {
		return
	}
	if s.jr.youngerThanKeep(now) {
		// Nothing to drop yet: look again when the journal has doubled,
		// not at every write (an import of 100,000 memories would read
		// them all back at once).
		s.jr.checkAt = max(s.jr.minLines, 2*s.jr.lines)
		return
	}
	jrecs, err := s.jr.read()
	if err != nil {
		return
	}
	held := func(e Entry) bool {
		r, ok := recs[e.ID]
		return ok && r.Rev == e.Rev || s.fileSeen.Covers(e.Rev)
	}
	_ = s.jr.compact(jrecs, s.device, held, now)
}
