package memory

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"time"

	"engram/memory/durable"
)

// settleTries is how many times a store reads a file that does not parse,
// or is empty while the store has entries, waiting settleDelay between
// reads until two reads agree, before it judges the file: an editor that
// saves in place may have been caught mid-write.
const settleTries = 5

// clock is the store's time, in UTC and to the millisecond so the file
// stays readable.
func (s *Store) clock() time.Time { return s.now().Round(0).UTC().Truncate(time.Millisecond) }

// syncLocked brings s.recs up to date with the file; it needs s.mu and the
// file lock. It reports whether the entries changed and whether the file
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
	memSeen := s.seen
	if !s.opened {
		// At Open the records are this device's journal, a part of the
		// store: the file's entries missing from it were not deleted.
		memSeen = Vector{}
	}
	res := mergeCopy(s.recs, memSeen, fc.entries, fc.seen, now)
	s.seen.merge(fc.seen)
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
	s.fileSeen = cloneVector(fc.seen)
	s.ioErr, s.unparsable = nil, nil
	return changed, fc.legacy || res.missing || len(res.stamp) > 0, nil
}

// unsettled reports whether a read of the file should be repeated before
// it is judged: it does not parse, or it is empty while the store has
// entries.
func (s *Store) unsettled(data []byte, perr error) bool {
	if perr != nil {
		return !errors.Is(perr, ErrUnsupportedVersion)
	}
	return len(trimFile(data)) == 0 && len(s.recs) > 0
}

// stampMerged gives the entries a merge made a Rev of this device. Hand
// edits and deletions found in a copy are changes of this device, and go
// to the journal; entries that were merely unstamped (a version 1 file, a
// hand-added entry) are in the file already and do not.
func (s *Store) stampMerged(res mergeResult, now time.Time) error {
	var changes []Entry
	for _, id := range res.stamp {
		e := res.recs[id]
		journal := !e.Rev.IsZero()
		e.Rev = s.nextRev(now, e)
		res.recs[id] = e
		if journal {
			changes = append(changes, e)
		}
	}
	if s.jr == nil {
		return nil
	}
	return s.jr.append(changes, now)
}

// compactJournalLocked drops from the journal the changes the file holds
// (or, having seen them, replaced or deleted for good) and has held for the
// journal's keep. A failure is left for the next
// time: the journal only grows.
func (s *Store) compactJournalLocked(recs map[string]Entry, now time.Time) {
	if s.jr == nil || s.jr.lines < s.jr.checkAt {
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
	_ = s.jr.compact(jrecs, held, now)
}
