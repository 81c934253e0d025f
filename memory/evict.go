package memory

import (
	"cmp"
	"slices"
	"time"
)

// DefaultMaxEntries is the cap of a store when Options.MaxEntries is 0.
const DefaultMaxEntries = 1000

// evictCompare orders eviction candidates, first victim first: superseded
// history before current entries, then the weakest kind (fact, lesson,
// correction, preference), then the least recently used or updated, then the
// oldest, then by ID so the order is total.
func evictCompare(a, b Entry) int {
	if c := -cmp.Compare(boolRank(a.SupersededBy != ""), boolRank(b.SupersededBy != "")); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind.Strength(), b.Kind.Strength()); c != 0 {
		return c
	}
	if c := lastTouched(a).Compare(lastTouched(b)); c != 0 {
		return c
	}
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// lastTouched is the later of LastUsed and Updated.
func lastTouched(e Entry) time.Time {
	if e.LastUsed.After(e.Updated) {
		return e.LastUsed
	}
	return e.Updated
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// evictLocked makes room for what a change adds: when the change takes
// the store over its cap, as many unpinned auto entries (distilled, never
// written by a person) as it added are evicted, kept as tombstones. A
// change that does not grow the store evicts nothing, so a file loaded
// over the cap stays whole. If no auto entry is left to evict the change
// fails with a *FullError.
func (s *Store) evictLocked(work map[string]Entry, protect []string, now time.Time) error {
	before, after := storedCount(s.recs), storedCount(work)
	if after <= s.max || after <= before {
		return nil
	}
	need := min(after-s.max, after-before)
	victims := evictionVictims(work, need, protect)
	if len(victims) < need {
		return &FullError{Stored: before, Max: s.max}
	}
	for _, id := range victims {
		e := work[id]
		e.Deleted, e.Updated = now, now
		work[id] = e
	}
	return nil
}

// evictionVictims picks up to need entries to drop: only unpinned auto
// entries that the current change is not about (protect), first victim
// first (see evictCompare).
func evictionVictims(recs map[string]Entry, need int, protect []string) []string {
	var cands []Entry
	for id, e := range recs {
		if e.Deleted.IsZero() && !e.Pinned && e.Source == SourceAuto && !slices.Contains(protect, id) {
			cands = append(cands, e)
		}
	}
	slices.SortFunc(cands, evictCompare)
	need = min(need, len(cands))
	ids := make([]string, need)
	for i := range need {
		ids[i] = cands[i].ID
	}
	return ids
}

// Usage returns how many entries the store holds against its cap
// (tombstones aside), for a "memory is full" notice.
func (s *Store) Usage() (stored, max int) {
	return storedCount(s.view().recs), s.max
}

// storedCount counts the entries that are not tombstones: current entries
// and superseded history, which the cap covers.
func storedCount(recs map[string]Entry) int {
	n := 0
	for _, e := range recs {
		if e.Deleted.IsZero() {
			n++
		}
	}
	return n
}
