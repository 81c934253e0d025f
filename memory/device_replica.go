package memory

import (
	"fmt"
	"maps"
	"slices"
)

// The replica a store stamps its changes with is what makes its Vector
// honest (see Vector): a store raises its own replica's entry in "seen"
// only over changes it can prove it still holds. With a journal the proof
// is the journal (see journal); whenever the journal cannot give it, or
// another machine turns out to stamp with the same replica, the store
// mints a new replica, and everything stamped with the old one stays as
// another replica's entries.

// takeJournalLocked adopts the replica the journal's header names, or
// mints a new one when the journal cannot vouch for it: there is no
// header (a new or deleted journal, or one from before headers), it was
// written on another machine (a copied state folder), or a record in it
// was lost. It learns what the replica issued from the records. A replica
// whose records were lost is also counted as forked, and forked says so
// (the file should be written for the other devices to learn it): the
// store no longer knows all it issued, so it cannot tell a copy that
// another machine stamped with it (a clone of this one) from one of its
// own lost changes, and no Vector's word on it can count.
func (s *Store) takeJournalLocked(jrecs map[string]journalRecord) (forked bool, err error) {
	h := s.jr.head
	switch {
	case s.vouched:
		if h.Replica != s.device {
			return false, s.rewriteJournalLocked(jrecs)
		}
	case h.Replica != "" && h.Machine == s.machine && !s.jr.lost:
		s.device = h.Replica
	default:
		if forked = h.Replica != "" && h.Machine == s.machine; forked {
			s.forked[h.Replica] = true
		}
		return forked, s.mintLocked(jrecs)
	}
	s.top = h.Since
	s.learnIssuedLocked(jrecs)
	return false, nil
}

// learnIssuedLocked learns from the journal's records what the store's
// replica issued, the changes of other processes of this device included.
func (s *Store) learnIssuedLocked(jrecs map[string]journalRecord) {
	for id, r := range jrecs {
		if r.Rev.Device == s.device {
			s.issued[id] = max(s.issued[id], r.Rev.N)
			s.top = max(s.top, r.Rev.N)
		}
	}
	s.counter = max(s.counter, s.top)
}

// mintLocked makes the store stamp with a new replica from now on, and
// rewrites the journal under its header, every record kept.
func (s *Store) mintLocked(jrecs map[string]journalRecord) error {
	s.device = newReplica(s.base)
	clear(s.issued)
	s.top, s.counter = 0, 0
	if s.jr == nil {
		return nil
	}
	if jrecs == nil {
		var err error
		if jrecs, err = s.jr.read(); err != nil {
			return err
		}
	}
	return s.rewriteJournalLocked(jrecs)
}

// rewriteJournalLocked writes the journal again with a header of the
// store's replica (Since 0: it issued nothing yet) and the records.
func (s *Store) rewriteJournalLocked(jrecs map[string]journalRecord) error {
	recs := slices.SortedFunc(maps.Values(jrecs), func(a, b journalRecord) int { return a.At.Compare(b.At) })
	if err := s.jr.rewrite(journalHeader{Replica: s.device, Machine: s.machine}, recs); err != nil {
		return fmt.Errorf("new replica: %w", err)
	}
	return nil
}

// vetCopyLocked checks a copy of the store (its entries, Vector and
// forked replicas) before it is merged, and returns the Vector to merge it
// with, which says nothing of a forked replica (see forkedLocked). At
// Open, a file that does not hold what the journal's compaction dropped
// (its seen stops short of the journal's Since) cannot back the replica's
// old changes: the store mints a new replica. A change in the copy
// stamped with this store's replica that the replica never issued (see
// foreignLocked), a copy that has seen more of the replica than it
// issued, or one that lists it as forked, means another machine stamps
// with it (a cloned system with the state folder): the store mints a new
// replica (or takes the one another process of the device minted) and
// counts the old one as forked. spread says the store learned of a forked
// replica, so its file should be written for the other devices to learn it
// too.
func (s *Store) vetCopyLocked(fc fileContents) (seen Vector, spread bool, err error) {
	before := len(s.forked)
	if !s.vouched {
		if err := s.vetReplicaLocked(fc.entries, fc.seen, slices.Contains(fc.forked, s.device)); err != nil {
			return fc.seen, false, err
		}
	}
	for _, d := range fc.forked {
		if d != s.device {
			s.forked[d] = true
		}
	}
	return s.forkedLocked(fc.seen), len(s.forked) > before, nil
}

// vetReplicaLocked mints a new replica when the copy (its entries and
// Vector) shows that the store's is not its own, or listed says another
// store found it forked (see vetCopyLocked).
func (s *Store) vetReplicaLocked(es []Entry, seen Vector, listed bool) error {
	if s.jr != nil && !s.opened && s.jr.head.Replica == s.device && s.jr.head.Since > seen[s.device] {
		return s.mintLocked(nil)
	}
	if !listed && !s.foreignLocked(es, seen) {
		return nil
	}
	old := s.device
	if s.jr != nil {
		// Another process of this device may have stamped them: ask the
		// journal, which every process of the device appends to.
		jrecs, err := s.jr.read()
		if err != nil {
			return err
		}
		if h := s.jr.head; h.Replica != "" && h.Replica != s.device && h.Machine == s.machine {
			// Another process retired the replica: stamp with the new one.
			s.device, s.top, s.counter = h.Replica, h.Since, 0
			clear(s.issued)
			s.learnIssuedLocked(jrecs)
			s.forked[old] = true
			return nil
		}
		s.learnIssuedLocked(jrecs)
		if !listed && !s.foreignLocked(es, seen) {
			return nil
		}
	}
	if err := s.mintLocked(nil); err != nil {
		return err
	}
	s.forked[old] = true
	return nil
}

// foreignLocked reports whether a copy holds a change stamped with the
// store's replica that the replica never issued (see vetCopyLocked): one
// the journal would hold (above its Since) and does not, or, once the
// records are complete (after Open), one of an entry the records lack
// altogether although its tombstone would not have expired yet. Only
// records past TombstoneTTL ever leave, so a change the replica issued
// within it is of an entry still held.
func (s *Store) foreignLocked(es []Entry, seen Vector) bool {
	since := uint64(0)
	if s.jr != nil && s.jr.head.Replica == s.device {
		since = s.jr.head.Since
	}
	if seen[s.device] > s.top {
		return true
	}
	recent := uint64(max(s.clock().Add(-s.ttl).UnixMilli(), 0))
	for _, e := range es {
		if e.Rev.Device != s.device || s.issued[e.ID] >= e.Rev.N {
			continue
		}
		if e.Rev.N > since {
			return true
		}
		if _, held := s.recs[e.ID]; s.opened && !held && e.Rev.N > recent {
			return true
		}
	}
	return false
}

// forkedLocked drops the forked replicas from the store's Vector and
// returns the copy's Vector without them. A replica two machines stamped
// with (clones of one system) has two histories under one name, so no
// Vector can say which of its changes a copy had seen: nothing stamped
// with it is taken for deleted because a copy lacks it. The store lists
// the forked replicas in its file, so that every device learns them
// before it takes another's Vector at its word.
func (s *Store) forkedLocked(seen Vector) Vector {
	var out Vector
	for d := range s.forked {
		delete(s.seen, d)
		if _, ok := seen[d]; ok {
			if out == nil {
				out = cloneVector(seen)
			}
			delete(out, d)
		}
	}
	if out == nil {
		return seen
	}
	return out
}
