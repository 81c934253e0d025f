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
// was lost. It learns what the replica issued from the records.
func (s *Store) takeJournalLocked(jrecs map[string]journalRecord) error {
	h := s.jr.head
	switch {
	case s.vouched:
		if h.Replica != s.device {
			return s.rewriteJournalLocked(jrecs)
		}
	case h.Replica != "" && h.Machine == s.machine && !s.jr.lost:
		s.device = h.Replica
	default:
		return s.mintLocked(jrecs)
	}
	s.top = h.Since
	s.learnIssuedLocked(jrecs)
	return nil
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

// vetCopyLocked checks a copy of the store (its entries and Vector) before
// it is merged, and returns the Vector to merge it with. At Open, a file
// that does not hold what the journal's compaction dropped (its seen
// stops short of the journal's Since) cannot back the replica's old
// changes: the store mints a new replica. A change in the copy stamped
// with this store's replica that the replica never issued (a counter above
// the journal's Since with no record of it, in this process or in the
// journal that every process of the device appends to), or a copy that
// has seen more of the replica than it issued, means another machine
// stamps with it (a cloned system with the state folder): the store mints
// a new replica (or takes the one another process of the device minted), and
// neither the copy's Vector nor the store's is taken at its word for the
// old one, so nothing stamped with it is taken for deleted. retired names
// the old replica when the copy showed it shared (the merge then stamps
// anew what the two machines do not agree on, see reissue), and is ""
// otherwise.
func (s *Store) vetCopyLocked(es []Entry, seen Vector) (_ Vector, retired string, _ error) {
	if s.vouched {
		return seen, "", nil
	}
	if s.jr != nil && !s.opened && s.jr.head.Replica == s.device && s.jr.head.Since > seen[s.device] {
		return seen, "", s.mintLocked(nil)
	}
	if !s.foreignLocked(es, seen) {
		return seen, "", nil
	}
	old := s.device
	if s.jr != nil {
		// Another process of this device may have stamped them: ask the
		// journal, which every process of the device appends to.
		jrecs, err := s.jr.read()
		if err != nil {
			return seen, "", err
		}
		if h := s.jr.head; h.Replica != "" && h.Replica != s.device && h.Machine == s.machine {
			// Another process retired the replica: stamp with the new one.
			s.device, s.top, s.counter = h.Replica, h.Since, 0
			clear(s.issued)
			s.learnIssuedLocked(jrecs)
			return s.distrust(old, seen), old, nil
		}
		s.learnIssuedLocked(jrecs)
		if !s.foreignLocked(es, seen) {
			return seen, "", nil
		}
	}
	if err := s.mintLocked(nil); err != nil {
		return seen, "", err
	}
	return s.distrust(old, seen), old, nil
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

// distrust drops the retired replica old from the store's Vector and
// returns the copy's Vector without it, so that nothing stamped with it
// is taken for deleted on the word of either.
func (s *Store) distrust(old string, seen Vector) Vector {
	delete(s.seen, old)
	seen = cloneVector(seen)
	delete(seen, old)
	return seen
}

// reissue adds to res.stamp the merged records stamped with the retired
// replica old that the store (mem) and the copy (disk) do not hold at one
// same version: the changes one of the machines that stamped with old made
// after they forked. A third copy may have taken the other machine's word
// for them (its Vector covers their Revs while it never had them) and
// would take their absence for a deletion; stamped anew with the store's
// replica, no copy has seen them, so they spread. What both hold alike
// keeps its Rev.
func (res *mergeResult) reissue(old string, mem map[string]Entry, disk []Entry) {
	if old == "" {
		return
	}
	inCopy := make(map[string]Rev, len(disk))
	for _, d := range disk {
		if d.Rev.Device == old {
			inCopy[d.ID] = d.Rev
		}
	}
	stamped := make(map[string]bool, len(res.stamp))
	for _, id := range res.stamp {
		stamped[id] = true
	}
	for id, e := range res.recs {
		if e.Rev.Device != old || stamped[id] {
			continue
		}
		if r, ok := inCopy[id]; ok && r == e.Rev && mem[id].Rev == e.Rev {
			continue
		}
		res.stamp = append(res.stamp, id)
	}
	slices.Sort(res.stamp[len(stamped):])
}
