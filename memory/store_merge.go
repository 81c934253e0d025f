package memory

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"time"

	"engram/memory/durable"
)

// Reload reads the file again if it changed since this store last read or
// wrote it, and merges it by ID with the rules of every merge (see
// Vector and mergeCopy): the version that saw the other wins;
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
	changed, err := func() (bool, error) {
		s.beginWrite()
		defer s.endWrite()
		if s.closed {
			return false, ErrClosed
		}
		st, err := durable.Stat(s.path)
		if (err == nil && s.disk.exists && st == s.disk.stamp ||
			errors.Is(err, fs.ErrNotExist) && !s.disk.exists && s.unparsable == nil) &&
			len(s.conflictCopies()) == 0 {
			return false, nil
		}
		if err == nil && s.unparsable != nil && st == s.badStamp {
			return false, fmt.Errorf("reload memory %s: %w", s.path, s.unparsable)
		}
		errBefore := s.errLocked()
		changed, err := s.reloadLocked()
		if err != nil {
			s.ioErr = err
			err = fmt.Errorf("reload memory %s: %w", s.path, err)
		}
		return changed || s.errLocked() != errBefore, err
	}()
	if changed {
		s.notify()
	}
	return err
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
		err = s.writeLocked()
	}
	return changed, err
}

// ChangedOnDisk reports whether the file is no longer the version this
// store last read or wrote, so a file watcher can tell another writer's
// change (true: call Reload) from the echo of this store's own write
// (false). The check is a stat; only when the stamp differs is the file
// read and its content compared (a rewrite with identical bytes is no
// change). It takes the write turn, as it keeps what it learns of the
// file. An in-memory store never changes on disk.
func (s *Store) ChangedOnDisk() bool {
	if s.path == "" {
		return false
	}
	s.beginWrite()
	defer s.endWrite()
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

// syncLocked brings s.recs up to date with the file; it needs the write turn
// and the file lock. It reports whether the entries changed and whether the file
// should be written (it lacks changes the store has, holds entries that
// needed a Rev, is in an older shape, or vanished while the store has
// entries). A file that does not parse is left alone: the error is the
// store's *UnparsableError.
func (s *Store) syncLocked() (changed, rewrite bool, err error) {
	st, err := durable.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		vanished := s.disk.exists || s.unparsable != nil || !s.opened
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
	if s.emptied(data) {
		if data, st, err = s.settleEmptied(data, st); errors.Is(err, fs.ErrNotExist) {
			return s.syncLocked() // deleted meanwhile
		} else if err != nil {
			return false, false, err
		}
		h = maphash.Bytes(s.seed, data)
	}
	fc, perr := parseDoc(data, st.ModTime().UTC())
	for try := 0; try < settleTries && s.unsettled(data, perr); try++ {
		time.Sleep(settleDelay)
		again, st2, err := readStoreFile(s.path)
		if err != nil {
			return false, false, err
		}
		if string(again) == string(data) {
			break
		}
		data, st, h = again, st2, maphash.Bytes(s.seed, again)
		fc, perr = parseDoc(data, st.ModTime().UTC())
	}
	if errors.Is(perr, ErrUnsupportedVersion) {
		return false, false, perr
	}
	if perr != nil {
		s.unparsable, s.badStamp = &UnparsableError{Path: s.path, Err: perr}, st
		return false, false, s.unparsable
	}
	if fc.legacy {
		if _, err := copyAside(s.path, "legacy", data, s.clock()); err != nil {
			return false, false, fmt.Errorf("back up legacy file: %w", err)
		}
	}
	now := s.clock()
	clampFuture(fc.entries, now)
	diskSeen, spread, err := s.vetCopyLocked(fc)
	if err != nil {
		return false, false, err
	}
	res := mergeCopy(s.recs, s.sawLocked(), fc.entries, diskSeen, s.forked, now)
	s.seen.merge(diskSeen)
	if err := s.stampMerged(res, now); err != nil {
		return false, false, err
	}
	changed = !sameRecords(s.recs, res.recs)
	if changed {
		s.replace(res.recs)
	}
	s.order = make([]string, 0, len(fc.entries))
	for _, e := range fc.entries {
		s.order = append(s.order, e.ID)
	}
	s.disk = diskState{exists: true, stamp: st, hash: h}
	s.fileSeen = cloneVector(diskSeen)
	s.ioErr, s.unparsable = nil, nil
	return changed, fc.legacy || res.missing || len(res.stamp) > 0 || spread, nil
}

// unsettled reports whether a read of the file should be repeated before
// it is judged: it does not parse, or it is empty while the store has
// entries.
func (s *Store) unsettled(data []byte, perr error) bool {
	if perr != nil {
		return !errors.Is(perr, ErrUnsupportedVersion)
	}
	return s.emptied(data)
}

// emptied reports whether data, the file as just read, is empty while the
// store has entries: what an editor saving in place leaves between
// truncating the file and writing it.
func (s *Store) emptied(data []byte) bool { return len(trimFile(data)) == 0 && len(s.recs) > 0 }

// Waiting for an emptied file: it is read every settlePoll until it has
// stayed as it is for settleStable, or holds something again, or for at
// most settleMax.
const (
	settlePoll   = 100 * time.Millisecond
	settleStable = 2 * time.Second
	settleMax    = 10 * time.Second
)

// settleEmptied waits, holding the write turn and the locks so that
// nothing is written over the file meanwhile, for an emptied file to be
// written or to stay empty (see emptied), and returns it as it is then.
// An editor that truncates the file and pauses before writing it is thus
// not taken for a file emptied on purpose, and its write does not go
// into a file the store renamed over.
func (s *Store) settleEmptied(data []byte, st durable.Stamp) ([]byte, durable.Stamp, error) {
	start := time.Now()
	stable := start
	for time.Since(stable) < settleStable && time.Since(start) < settleMax {
		time.Sleep(settlePoll)
		again, st2, err := readStoreFile(s.path)
		if err != nil {
			return nil, durable.Stamp{}, err
		}
		if st2 != st || string(again) != string(data) {
			data, st, stable = again, st2, time.Now()
		}
		if !s.emptied(data) {
			break
		}
	}
	return data, st, nil
}

// sawLocked says whether the store's records had seen a version of an
// entry, for mergeCopy: after Open, whether the store's Vector covers it;
// at Open, where the records are the journal's, whether the journal's
// record of the entry had seen it when this device made its change (an
// entry the journal lacks was not deleted here).
func (s *Store) sawLocked() func(id string, r Rev) bool {
	if s.opened {
		return func(_ string, r Rev) bool { return s.seen.Covers(r) }
	}
	return func(id string, r Rev) bool { return !s.forked[r.Device] && s.openSaw[id].Covers(r) }
}

// stampMerged gives the entries a merge made a Rev of this device and
// journals them: hand edits and deletions found in a copy, and entries
// that were unstamped (a version 1 file, entries typed by hand), so that
// the journal holds every change the replica's counter covers.
func (s *Store) stampMerged(res mergeResult, now time.Time) error {
	changes := make([]Entry, 0, len(res.stamp))
	for _, id := range res.stamp {
		e := res.recs[id]
		e.Prev = e.Rev // the version edited by hand, or none
		e.Rev = s.nextRev(now, e)
		res.recs[id] = e
		changes = append(changes, e)
	}
	if s.jr == nil {
		return nil
	}
	return s.jr.append(changes, s.seen, now)
}

// clampFuture brings times after now back to now: a clock that was ahead
// when an entry was written must not make it win every later edit. A time
// typed by hand (in an entry without a Rev, or edited by hand since it was
// stamped) is brought back further, to the newest change the copy's
// stamped entries show if that is earlier: a date typed years ahead must
// not make a hand edit win over the edits made after it elsewhere.
func clampFuture(es []Entry, now time.Time) {
	typedBound := time.Time{} // worked out on the first typed time from the future
	for i := range es {
		e := &es[i]
		checked, typed := false, false
		for _, t := range []*time.Time{&e.Created, &e.Updated, &e.LastUsed, &e.Deleted} {
			if !t.After(now) {
				continue
			}
			if !checked {
				checked, typed = true, e.Rev.IsZero() || handEdited(*e)
			}
			*t = now
			if typed {
				if typedBound.IsZero() {
					typedBound = newestStamped(es, now)
				}
				*t = typedBound
			}
		}
	}
}

// newestStamped is the newest Updated of the entries of es as they were
// stamped (not edited by hand since), at most now; now if there is none.
func newestStamped(es []Entry, now time.Time) time.Time {
	var newest time.Time
	for _, e := range es {
		if !e.Rev.IsZero() && e.Updated.After(newest) && !handEdited(e) {
			newest = e.Updated
		}
	}
	if newest.IsZero() || newest.After(now) {
		return now
	}
	return newest
}

// parsedLocked ends the unparsable state: the file is readable again.
func (s *Store) parsedLocked() {
	if s.unparsable != nil && errors.Is(s.ioErr, s.unparsable) {
		s.ioErr = nil
	}
	s.unparsable = nil
}

// sameEntry reports whether two versions of an entry are identical.
func sameEntry(a, b Entry) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Text == b.Text && a.Source == b.Source &&
		a.Pinned == b.Pinned && a.Uses == b.Uses && a.Supersedes == b.Supersedes &&
		a.SupersededBy == b.SupersededBy && a.Created.Equal(b.Created) &&
		a.Updated.Equal(b.Updated) && a.LastUsed.Equal(b.LastUsed) && a.Deleted.Equal(b.Deleted) && a.Absent == b.Absent && a.Rev == b.Rev && a.Prev == b.Prev
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
