package memory

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// ErrForgotten is the error of a Restore of an entry forgotten with
// Forget: its text is gone and cannot be brought back.
var ErrForgotten = errors.New("memory was forgotten: its text is no longer kept")

// Forget forgets an entry for good: a live one with its history (the
// versions it superseded, and conflict copies), a version of the history
// with those before it, or one Remove put in the trash. What stays in the
// file, so that the deletion reaches every copy of it and outranks any
// older copy that comes back, is a tombstone of each with the ID and the
// times only; their texts also leave every other file the store keeps
// (the trash, the journal's records, the backups: see purge). Unlike
// Remove it cannot be undone with Restore (ErrForgotten); a caller that
// offers undo keeps the returned entry and adds it again. It returns the
// entry as it was. If the texts could not be taken out of every file, the
// error is ErrNotPurged (with the entry): forgetting it again finishes.
func (s *Store) Forget(id string) (Entry, error) {
	var out Entry
	var gone []Entry
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		e, ok := recs[id]
		if !ok || forgotten(e) {
			t, inTrash, err := s.trashedLocked(id, now)
			if err != nil {
				return nil, false, err
			}
			if !inTrash {
				return nil, false, fmt.Errorf("%w: %s", ErrNotFound, id)
			}
			e = t.Entry
			e.Deleted = time.Time{}
		}
		out = e
		chain := maps.Clone(recs)
		chain[id] = e
		gone = chainOf(chain, id)
		for _, v := range gone {
			recs[v.ID] = tombstone(v, now)
		}
		return nil, true, nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("forget memory: %w", err)
	}
	if err := s.purge(newPurgeSet(gone, nil)); err != nil {
		return out, fmt.Errorf("forget memory %s: %w", id, err)
	}
	return out, nil
}

// ForgetSecrets forgets, as Forget does, every entry whose text looks like
// a secret (see Secret): live ones, their history and the removed ones in
// the trash, and it takes every such text out of the journal and the
// backups, whichever entry or version held it. It returns the versions
// forgotten, texts included (so their copies elsewhere can go too).
func (s *Store) ForgetSecrets() ([]Entry, error) {
	flag := func(text string) bool { _, ok := Secret(text); return ok }
	var gone []Entry
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		items, err := s.readTrash(now)
		if err != nil {
			return nil, false, err
		}
		chain := maps.Clone(recs)
		for _, t := range items {
			if e, ok := chain[t.ID]; !ok || forgotten(e) {
				t.Deleted = time.Time{}
				chain[t.ID] = t.Entry
			}
		}
		in := map[string]bool{}
		for id, e := range chain {
			if e.Text == "" || in[id] || !flag(e.Text) {
				continue
			}
			for _, v := range chainOf(chain, id) {
				if !in[v.ID] {
					in[v.ID] = true
					gone = append(gone, v)
				}
			}
		}
		for _, v := range gone {
			recs[v.ID] = tombstone(v, now)
		}
		return nil, len(gone) > 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("forget secrets: %w", err)
	}
	slices.SortFunc(gone, fileCompare)
	if err := s.purge(newPurgeSet(gone, flag)); err != nil {
		return gone, fmt.Errorf("forget secrets: %w", err)
	}
	return gone, nil
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
