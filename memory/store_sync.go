package memory

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"maps"
	"slices"
	"time"

	"engram/memory/durable"
)

// Reload reads the file again if it changed since this store last read or
// wrote it, and merges it by ID: an entry changed on both sides keeps the
// newer Updated (on a tie, the file's: a hand edit); if the file's losing
// version has a different text it is kept as superseded history. Entries
// the file no longer has become tombstones (a hand deletion), unless the
// file cannot have known them (it is older than their last change, or
// holds older versions of other entries: a sync tool or an editor wrote a
// stale copy), in which case they are kept. If the file vanished, the store
// writes its entries back. If the file no longer parses, it is left as it
// is, the entries stay, and Reload and Err return an *UnparsableError
// until the file parses again.
//
// Reload is cheap when nothing changed (one stat) and safe to call at any
// time, from any goroutine; a file watcher can call it on every event.
func (s *Store) Reload() error {
	if s.path == "" {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	st, err := durable.Stat(s.path)
	if err == nil && s.disk.exists && st == s.disk.stamp ||
		errors.Is(err, fs.ErrNotExist) && !s.disk.exists && s.unparsable == nil {
		s.mu.Unlock()
		return nil
	}
	if err == nil && s.unparsable != nil && st == s.badStamp {
		u := s.unparsable
		s.mu.Unlock()
		return fmt.Errorf("reload memory %s: %w", s.path, u)
	}
	errBefore := s.errLocked()
	changed, err := s.reloadLocked()
	if err != nil {
		s.ioErr = err
	}
	changed = changed || s.errLocked() != errBefore
	s.mu.Unlock()
	if changed {
		s.notify()
	}
	if err != nil {
		return fmt.Errorf("reload memory %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) reloadLocked() (bool, error) {
	if err := durable.Lock(s.lock); err != nil {
		return false, fmt.Errorf("lock: %w", err)
	}
	defer durable.Unlock(s.lock)
	changed, rewrite, err := s.syncLocked()
	if err == nil && rewrite {
		err = s.writeLocked(s.recs)
	}
	return changed, err
}

// ChangedOnDisk reports whether the file is no longer the version this
// store last read or wrote, so a file watcher can tell another writer's
// change (true: call Reload) from the echo of this store's own write
// (false). The check is a stat; only when the stamp differs is the file
// read and its content compared (a rewrite with identical bytes is no
// change). An in-memory store never changes on disk.
func (s *Store) ChangedOnDisk() bool {
	if s.path == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
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

// change runs one read-modify-write. fn changes recs (a copy of the
// entries, already merged with the file) and returns the IDs to protect
// from eviction and whether it changed anything; an error from fn changes
// nothing. Listeners are notified after the store's lock is released.
func (s *Store) change(fn func(recs map[string]Entry, now time.Time) (protect []string, changed bool, err error)) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	errBefore := s.errLocked()
	changed, err := s.changeLocked(fn)
	changed = changed || s.errLocked() != errBefore
	s.mu.Unlock()
	if changed {
		s.notify()
	}
	return err
}

func (s *Store) changeLocked(fn func(map[string]Entry, time.Time) ([]string, bool, error)) (notify bool, err error) {
	rewrite := false
	if s.path != "" {
		if err := durable.Lock(s.lock); err != nil {
			return false, fmt.Errorf("lock %s: %w", s.path, err)
		}
		defer durable.Unlock(s.lock)
		notify, rewrite, err = s.syncLocked()
		if err != nil {
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
	victims := evictionVictims(work, s.max, protect)
	if after := storedCount(work) - len(victims); after > s.max && after > storedCount(s.recs) {
		return notify, fmt.Errorf("%w: %d entries would exceed the cap of %d (pinned entries and the ones being added are never evicted)", ErrFull, after, s.max)
	}
	for _, id := range victims {
		e := work[id]
		e.Deleted, e.Updated = now, now
		work[id] = e
	}
	if s.path != "" {
		if err := s.writeLocked(work); err != nil {
			return notify, err
		}
	}
	s.replace(work)
	return true, nil
}

// clock is the store's time, in UTC and to the millisecond so the file
// stays readable.
func (s *Store) clock() time.Time { return s.now().Round(0).UTC().Truncate(time.Millisecond) }

// syncLocked brings s.recs up to date with the file; it needs s.mu and the
// file lock. It reports whether the entries changed and whether the file
// should be rewritten (legacy shape; vanished or set aside while the store
// has entries).
func (s *Store) syncLocked() (changed, rewrite bool, err error) {
	st, err := durable.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		vanished := s.disk.exists || s.unparsable != nil
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
	entries, legacy, perr := ParseFile(data, st.ModTime().UTC())
	for try := 0; perr != nil && !errors.Is(perr, ErrUnsupportedVersion) && try < 3; try++ {
		time.Sleep(settleDelay)
		again, st2, err := readStoreFile(s.path)
		if err != nil {
			return false, false, err
		}
		if string(again) == string(data) {
			break
		}
		data, st, h = again, st2, maphash.Bytes(s.seed, again)
		entries, legacy, perr = ParseFile(data, st.ModTime().UTC())
	}
	if errors.Is(perr, ErrUnsupportedVersion) {
		return false, false, perr
	}
	if perr != nil && s.opened {
		s.unparsable, s.badStamp = &UnparsableError{Path: s.path, Err: perr}, st
		return false, false, s.unparsable
	}
	if perr != nil {
		saved, err := setAside(s.path, "corrupt", s.clock())
		if err != nil {
			return false, false, fmt.Errorf("set aside unreadable file: %w", err)
		}
		s.corrupt = &CorruptError{Path: s.path, SavedAs: saved, Err: perr}
		s.disk = diskState{}
		return false, len(s.recs) > 0, nil
	}
	if legacy {
		if _, err := copyAside(s.path, "legacy", data, s.clock()); err != nil {
			return false, false, fmt.Errorf("back up legacy file: %w", err)
		}
	}
	merged := mergeDisk(s.recs, entries, s.disk.exists, st.ModTime(), s.clock())
	changed = !sameRecords(s.recs, merged)
	if changed {
		s.replace(merged)
	}
	s.order = make([]string, 0, len(entries))
	for _, e := range entries {
		s.order = append(s.order, e.ID)
	}
	s.disk = diskState{exists: true, stamp: st, hash: h}
	s.ioErr, s.unparsable = nil, nil
	return changed, legacy, nil
}

// parsedLocked ends the unparsable state: the file is readable again.
func (s *Store) parsedLocked() {
	if s.unparsable != nil && errors.Is(s.ioErr, s.unparsable) {
		s.ioErr = nil
	}
	s.unparsable = nil
}

// writeLocked writes recs to the file; it needs s.mu and the file lock.
func (s *Store) writeLocked(recs map[string]Entry) error {
	data := s.encode(recs)
	if len(data) > MaxFileSize {
		return fmt.Errorf("save %s: %w: %d bytes, at most %d", s.path, ErrTooLarge, len(data), MaxFileSize)
	}
	st, err := writeStoreFile(s.path, data)
	if err != nil {
		s.ioErr = fmt.Errorf("save memories: %w", err)
		return s.ioErr
	}
	s.disk = diskState{exists: true, stamp: st, hash: maphash.Bytes(s.seed, data)}
	s.ioErr = nil
	return nil
}

// replace installs a new set of records and keeps the index and the dedupe
// cache in step.
func (s *Store) replace(recs map[string]Entry) {
	old := s.recs
	s.recs = recs
	for id := range old {
		if _, ok := recs[id]; !ok {
			s.forms.remove(id)
			if s.index != nil {
				s.index.Delete(id)
			}
		}
	}
	if s.index == nil && !s.formsReady {
		return
	}
	for id, e := range recs {
		if o, ok := old[id]; ok && sameEntry(o, e) {
			continue
		}
		if s.formsReady {
			if e.Live() {
				s.formOf(id, e.Text)
			} else {
				s.forms.remove(id)
			}
		}
		if s.index == nil {
			continue
		}
		if e.Live() {
			s.index.Put(e)
		} else {
			s.index.Delete(id)
		}
	}
}

// sorted returns recs in file order (see sortedIDs).
func (s *Store) sorted(recs map[string]Entry) []Entry {
	ids := s.sortedIDs(recs)
	out := make([]Entry, len(ids))
	for i, id := range ids {
		out[i] = recs[id]
	}
	return out
}

// sortedIDs returns the IDs of recs in file order: by Created; entries
// created at the same time (to the millisecond) keep the order they had
// in the file, and new ones follow them, by ID. So entries added one after
// another list in the order they were added, whichever process added them.
// The order is remembered for the next call.
func (s *Store) sortedIDs(recs map[string]Entry) []string {
	type key struct {
		created int64
		id      string
	}
	keys := make([]key, 0, len(recs))
	for _, id := range s.order {
		if e, ok := recs[id]; ok {
			keys = append(keys, key{e.Created.UnixNano(), id})
		}
	}
	if known := len(keys); known < len(recs) {
		had := make(map[string]bool, known)
		for _, k := range keys {
			had[k.id] = true
		}
		for id, e := range recs {
			if !had[id] {
				keys = append(keys, key{e.Created.UnixNano(), id})
			}
		}
		slices.SortFunc(keys[known:], func(a, b key) int { return cmp.Compare(a.id, b.id) })
	}
	slices.SortStableFunc(keys, func(a, b key) int { return cmp.Compare(a.created, b.created) })
	order := make([]string, len(keys))
	for i, k := range keys {
		order[i] = k.id
	}
	s.order = order
	return order
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
	s.buf = joinFile(s.buf[:0], parts, size)
	return s.buf
}

// fileCompare orders entries oldest first, then by ID.
func fileCompare(a, b Entry) int {
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// sameEntry reports whether two versions of an entry are identical.
func sameEntry(a, b Entry) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Text == b.Text && a.Source == b.Source &&
		a.Pinned == b.Pinned && a.Uses == b.Uses && a.Supersedes == b.Supersedes &&
		a.SupersededBy == b.SupersededBy && a.Created.Equal(b.Created) &&
		a.Updated.Equal(b.Updated) && a.LastUsed.Equal(b.LastUsed) && a.Deleted.Equal(b.Deleted)
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
