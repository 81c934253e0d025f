package memory

import (
	"fmt"
	"slices"
	"time"
)

// Add stores a new entry. Kind may be an alias (empty is fact), Source
// empty is user; ID, if set, must be unused; Created, Updated, LastUsed and
// Uses are kept if set (imports); the links and Deleted are ignored. The
// text is checked with CleanText (the limit depends on Source); a bad entry
// changes nothing.
//
// If the text duplicates a live entry (see DedupeMinRunes), nothing new is
// stored: the existing entry is refreshed (Updated), takes the stronger of
// the two kinds, the longer text and a pin, and Add returns it with false.
//
// If the store goes over its cap, distilled entries are evicted to make
// room (kept as tombstones): only unpinned SourceAuto ones, never the new
// entry; superseded history first, then the weakest kind (fact, lesson,
// correction, preference), then the least recently used or updated. If
// none is left, Add fails with a *FullError ("memory is full: 1,000 of
// 1,000; review old memories"): what a person wrote is never evicted.
func (s *Store) Add(e Entry) (Entry, bool, error) {
	res, err := s.AddAll([]Entry{e})
	if err != nil {
		return Entry{}, false, err
	}
	return res[0].Entry, res[0].New, res[0].Err
}

// AddAll adds several entries with one write, as Add does for each, later
// ones deduplicated against earlier ones. Entries that fail validation get
// their error in the result; the returned error is for the whole batch
// (file, lock, ErrFull), in which case nothing was stored. With a journal,
// the entries are journaled before the file is written: once AddAll
// returns they are not lost, even if the file could not be written (Err
// says why) or is later replaced by a copy without them.
func (s *Store) AddAll(es []Entry) ([]AddResult, error) {
	res := make([]AddResult, len(es))
	for i, e := range es {
		res[i].Entry, res[i].Err = checkNew(e)
	}
	var out []AddResult
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		out = slices.Clone(res)
		var protect []string
		changed := false
		for i := range out {
			if out[i].Err != nil {
				continue
			}
			e, isNew, err := s.addTo(recs, out[i].Entry, now)
			out[i] = AddResult{Entry: e, New: isNew, Err: err}
			if err == nil {
				changed = true
				protect = append(protect, e.ID)
			}
		}
		return protect, changed, nil
	})
	if err != nil {
		return nil, fmt.Errorf("add memory: %w", err)
	}
	for i := range out {
		if out[i].Err != nil {
			out[i].Err = fmt.Errorf("add memory: %w", out[i].Err)
		} else {
			out[i].Entry = s.mustGet(out[i].Entry.ID, out[i].Entry)
		}
	}
	return out, nil
}

// mustGet returns the stored version of an entry just written (eviction
// or a later duplicate in the same batch may have touched it).
func (s *Store) mustGet(id string, fallback Entry) Entry {
	if e, ok := s.Get(id); ok {
		return e
	}
	return fallback
}

// checkNew validates an entry for Add and returns it cleaned.
func checkNew(e Entry) (Entry, error) {
	src, err := checkSource(e.Source)
	if err != nil {
		return e, err
	}
	kind, err := CheckKind(e.Kind)
	if err != nil {
		return e, err
	}
	text, err := CleanText(e.Text, src)
	if err != nil {
		return e, err
	}
	if err := checkSecret(text, src); err != nil {
		return e, err
	}
	if e.ID != "" && !validID(e.ID) {
		return e, fmt.Errorf("invalid memory ID %q (want letters, digits, '-' and '_')", e.ID)
	}
	return Entry{
		ID: e.ID, Kind: kind, Text: text, Source: src, Pinned: e.Pinned,
		Created: e.Created, Updated: e.Updated, LastUsed: e.LastUsed, Uses: max(e.Uses, 0),
	}, nil
}

// addTo adds a checked entry to recs, or refreshes its duplicate.
func (s *Store) addTo(recs map[string]Entry, e Entry, now time.Time) (Entry, bool, error) {
	form := newDedupeForm(e.Text)
	if id := s.findDuplicate(recs, form); id != "" {
		d := recs[id]
		d.Updated = now
		if e.Kind.Strength() > d.Kind.Strength() {
			d.Kind = e.Kind
		}
		if form.runes > s.formOf(id, d.Text).runes {
			d.Text = e.Text
			s.forms.put(id, form)
		}
		d.Pinned = d.Pinned || e.Pinned
		recs[id] = d
		return d, false, nil
	}
	id, err := newEntryID(recs, e.ID)
	if err != nil {
		return e, false, err
	}
	e.ID = id
	if e.Created.IsZero() {
		e.Created = now
	}
	if e.Updated.IsZero() {
		e.Updated = now
	}
	recs[e.ID] = e
	s.forms.put(e.ID, form)
	return e, true, nil
}

// newEntryID returns the ID of a new entry: id if it is free (ErrExists if
// not), or a fresh random one when id is empty.
func newEntryID(recs map[string]Entry, id string) (string, error) {
	if id != "" {
		if _, taken := recs[id]; taken {
			return "", fmt.Errorf("%w: %s", ErrExists, id)
		}
		return id, nil
	}
	for {
		if id = NewID(); recs[id].ID == "" {
			return id, nil
		}
	}
}

// findDuplicate returns the ID of the live entry form duplicates: an equal
// text if there is one, else the oldest that contains or is contained.
func (s *Store) findDuplicate(recs map[string]Entry, form dedupeForm) string {
	if !s.formsReady {
		for id, e := range recs {
			if e.Live() {
				s.formOf(id, e.Text)
			}
		}
		s.formsReady = true
	}
	var best Entry
	bestEqual := false
	s.forms.candidates(&form, func(id string, f *dedupeForm) {
		if !form.matches(f) {
			return
		}
		e, ok := recs[id]
		if !ok || !e.Live() || e.Text != f.text {
			return
		}
		equal := f.key == form.key
		switch {
		case best.ID == "",
			equal && !bestEqual,
			equal == bestEqual && fileCompare(e, best) < 0:
			best, bestEqual = e, equal
		}
	})
	return best.ID
}

// formOf returns the dedupe form of an entry's text, cached by ID. Once
// formsReady is set the cache holds every live entry: replace and addTo
// keep it so, and findDuplicate iterates it instead of the entries. A
// change that fails clears formsReady, as addTo may have cached forms of
// texts that were not stored.
func (s *Store) formOf(id, text string) dedupeForm {
	if f, ok := s.forms.get(id); ok && f.text == text {
		return f
	}
	f := newDedupeForm(text)
	s.forms.put(id, f)
	return f
}

// Update changes the text, kind, pin or source of a live entry and bumps
// its Updated time: a person's edit (the model's changes go through
// Supersede). A new text keeps the old one as history of the entry (an
// entry superseded by it, so History lists it and it can be restored),
// and without a Source in c the entry becomes the person's (SourceUser).
// A change that changes nothing does not write.
func (s *Store) Update(id string, c Change) (Entry, error) {
	var out Entry
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		e, ok := recs[id]
		if !ok || !e.Live() {
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		old := e
		limit := SourceUser
		if c.Source != nil {
			src, err := checkSource(*c.Source)
			if err != nil {
				return nil, false, err
			}
			e.Source, limit = src, src
		}
		if c.Text != nil {
			text, err := CleanText(*c.Text, limit)
			if err != nil {
				return nil, false, err
			}
			if text != e.Text {
				keepEarlierText(recs, old)
				if c.Source == nil {
					e.Source = SourceUser
				}
			}
			e.Text = text
		}
		if c.Kind != nil {
			k, err := CheckKind(*c.Kind)
			if err != nil {
				return nil, false, err
			}
			e.Kind = k
		}
		if c.Pinned != nil {
			e.Pinned = *c.Pinned
		}
		if sameEntry(old, e) {
			out = e
			return nil, false, nil
		}
		e.Updated = now
		recs[id] = e
		out = e
		return []string{id}, true, nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("update memory: %w", err)
	}
	return out, nil
}

// keepEarlierText keeps the text old had before an edit as an entry of its
// history: superseded by old, dated when that text was written, unpinned,
// under an ID derived from the version, the same on every device.
func keepEarlierText(recs map[string]Entry, old Entry) {
	h := old
	h.ID = contentID("edit", old.ID, old.Text, old.Rev.String())
	h.Created, h.Pinned, h.Supersedes, h.SupersededBy = old.Updated, false, "", old.ID
	h.Rev, h.Prev = Rev{}, Rev{} // a new entry: the write stamps it
	if _, taken := recs[h.ID]; !taken {
		recs[h.ID] = h
	}
}

// Remove deletes an entry (live or history): it puts the entry, text
// included, in the trash (see Trash) and leaves in the file a tombstone
// with its ID and times only, so the text leaves the file, and every copy
// of it, at once; it leaves the journal and the backups too (see purge),
// so the trash is the only file that keeps it. Restore brings it back
// from the trash until the tombstone expires or the trash is emptied. If
// the text could not be taken out of every file, the error is
// ErrNotPurged (the entry is removed): Forget finishes the job.
func (s *Store) Remove(id string) error {
	removed, err := s.RemoveAll([]string{id})
	if err == nil && len(removed) == 0 {
		err = fmt.Errorf("remove memory: %w: %s", ErrNotFound, id)
	}
	return err
}

// RemoveAll removes, as Remove does, each entry of ids that is not
// deleted already, with one write and one purge, and returns the IDs it
// removed; the others are left out.
func (s *Store) RemoveAll(ids []string) ([]string, error) {
	var gone []Entry
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		gone = gone[:0]
		for _, id := range ids {
			if e, ok := recs[id]; ok && e.Deleted.IsZero() {
				gone = append(gone, e)
				recs[id] = tombstone(e, now)
			}
		}
		if len(gone) == 0 {
			return nil, false, nil
		}
		if err := s.trashLocked(gone, now); err != nil {
			return nil, false, err
		}
		return nil, true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("remove memory: %w", err)
	}
	if len(gone) > 0 {
		ps := newPurgeSet(gone, nil)
		ps.keepTrash = true
		err = s.purge(ps)
	}
	removed := make([]string, len(gone))
	for i, e := range gone {
		removed[i] = e.ID
	}
	if err != nil {
		return removed, fmt.Errorf("remove memory: %w", err)
	}
	return removed, nil
}

// tombstone is the deletion of e at now: its ID and times, nothing it said.
func tombstone(e Entry, now time.Time) Entry {
	return Entry{ID: e.ID, Kind: KindFact, Created: e.Created, Updated: now, Deleted: now}
}

// Restore undoes a Remove, from the trash, with a new version of the
// entry that outranks its tombstone on every copy; or an eviction, while
// the tombstone is kept. Restoring an entry that is not deleted does
// nothing. A memory forgotten with Forget cannot be restored
// (ErrForgotten).
func (s *Store) Restore(id string) error {
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		e, ok := recs[id]
		if ok && e.Deleted.IsZero() {
			return nil, false, nil
		}
		if ok && !forgotten(e) {
			e.Deleted, e.Updated, e.Absent = time.Time{}, now, false
			recs[id] = e
			return []string{id}, true, nil
		}
		if err := s.updateTrashLocked(now, nil); err != nil { // drops what expired
			return nil, false, err
		}
		t, inTrash, err := s.trashedLocked(id, now)
		switch {
		case err != nil:
			return nil, false, err
		case !inTrash && ok:
			return nil, false, fmt.Errorf("%w: %s", ErrForgotten, id)
		case !inTrash:
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		e = t.Entry
		e.Deleted, e.Updated, e.Absent = time.Time{}, now, false
		e.Rev = Rev{} // a change of this device, later than the tombstone
		recs[id] = e
		return []string{id}, true, nil
	})
	if err == nil {
		err = s.dropTrashed(func(t Trashed) bool { return t.ID == id })
	}
	if err != nil {
		return fmt.Errorf("restore memory: %w", err)
	}
	return nil
}

// Supersede replaces an entry with a new one and keeps the old as history:
// the new entry links to it by Supersedes, it to the new one by
// SupersededBy, and it stops being live. If oldID was already superseded,
// the newest entry of its chain is replaced. The new entry takes the kind
// of the entry it replaces when e.Kind is empty, and its pin. It is not
// deduplicated.
func (s *Store) Supersede(oldID string, e Entry) (Entry, error) {
	inheritKind := e.Kind == ""
	ne, err := checkNew(e)
	if err != nil {
		return Entry{}, fmt.Errorf("supersede memory: %w", err)
	}
	err = s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		head, ok := recs[oldID]
		for steps := 0; ok && head.SupersededBy != "" && steps < len(recs); steps++ {
			head, ok = recs[head.SupersededBy]
		}
		if !ok || !head.Live() {
			return nil, false, fmt.Errorf("%w: %s", ErrNotFound, oldID)
		}
		id, err := newEntryID(recs, ne.ID)
		if err != nil {
			return nil, false, err
		}
		ne.ID = id
		if inheritKind {
			ne.Kind = head.Kind
		}
		ne.Created, ne.Updated = now, now
		ne.Supersedes = head.ID
		ne.Pinned = ne.Pinned || head.Pinned
		head.SupersededBy, head.Pinned, head.Updated = ne.ID, false, now
		recs[head.ID] = head
		recs[ne.ID] = ne
		return []string{ne.ID}, true, nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("supersede memory: %w", err)
	}
	return s.mustGet(ne.ID, ne), nil
}

// MarkUsed records that entries were recalled: LastUsed is now and Uses
// goes up by one. Unknown or non-live IDs are ignored.
func (s *Store) MarkUsed(ids ...string) error {
	err := s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		changed := false
		for _, id := range ids {
			e, ok := recs[id]
			if !ok || !e.Live() {
				continue
			}
			e.LastUsed = now
			e.Uses++
			recs[id] = e
			changed = true
		}
		return nil, changed, nil
	})
	if err != nil {
		return fmt.Errorf("mark memory used: %w", err)
	}
	return nil
}
