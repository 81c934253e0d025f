package memory

import (
	"errors"
	"fmt"
	"time"
)

// ErrForgotten is the error of a Restore of an entry forgotten with
// Forget: its text is gone and cannot be brought back.
var ErrForgotten = errors.New("memory was forgotten: its text is no longer kept")

// Forget deletes a live entry together with its history (the versions it
// superseded, and conflict copies) and removes their texts at once: what
// stays in the file, so that the deletion reaches every copy of it, is a
// tombstone with the ID and the times only. Unlike Remove it cannot be
// undone with Restore (ErrForgotten); a caller that offers undo keeps the
// returned entry and adds it again. It returns the entry as it was.
func (s *Store) Forget(id string) (Entry, error) {
	var out Entry
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		e, ok := recs[id]
		if !ok || !e.Live() {
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		out = e
		for _, v := range chainOf(recs, id) {
			recs[v.ID] = Entry{ID: v.ID, Kind: KindFact, Created: v.Created, Updated: now, Deleted: now}
		}
		return nil, true, nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("forget memory: %w", err)
	}
	return out, nil
}

// chainOf is the entry id and every version that led to it: the entries it
// supersedes, transitively, and those superseded by any of them.
func chainOf(recs map[string]Entry, id string) []Entry {
	in := map[string]bool{id: true}
	for changed := true; changed; {
		changed = false
		for _, e := range recs {
			if in[e.ID] {
				if e.Supersedes != "" && !in[e.Supersedes] {
					if _, ok := recs[e.Supersedes]; ok {
						in[e.Supersedes], changed = true, true
					}
				}
				continue
			}
			if e.SupersededBy != "" && in[e.SupersededBy] {
				in[e.ID], changed = true, true
			}
		}
	}
	out := make([]Entry, 0, len(in))
	for id := range in {
		out = append(out, recs[id])
	}
	return out
}

// forgotten reports a tombstone whose text was removed by Forget.
func forgotten(e Entry) bool { return !e.Deleted.IsZero() && e.Text == "" }
