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

// evictionVictims picks the entries to drop so that at most max entries
// (tombstones aside) remain. Pinned entries and the protected ones (those
// the current change is about) are never picked, so fewer than needed may
// come back when the rest is pinned.
func evictionVictims(recs map[string]Entry, max int, protect []string) []string {
	n := storedCount(recs)
	if n <= max {
		return nil
	}
	var cands []Entry
	for id, e := range recs {
		if e.Deleted.IsZero() && !e.Pinned && !slices.Contains(protect, id) {
			cands = append(cands, e)
		}
	}
	slices.SortFunc(cands, evictCompare)
	need := min(n-max, len(cands))
	ids := make([]string, need)
	for i := range need {
		ids[i] = cands[i].ID
	}
	return ids
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
