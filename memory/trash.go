package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"engram/memory/durable"
)

// Trashed is an entry in the trash: the entry as it was when Remove took
// it out of the file, text included, and when that was.
type Trashed struct {
	Entry
	Removed time.Time `json:"removed"`
}

// The trash is where Remove puts what it deletes, so that Restore can
// bring it back while the file keeps only a tombstone without the text. It
// is this device's own, never synced: <StateDir>/trash/<the journal's
// name>, one JSON line per entry (mode 0600), replaced atomically under
// the journal's lock on every change. A store without a StateDir keeps
// its trash in memory only, for the life of the Store. An entry stays in
// the trash as long as its tombstone stays in the file (TombstoneTTL, 30
// days by default): older ones are dropped when the store opens and on
// every change of the trash, and so is one whose tombstone was replaced by
// a later deletion from another device. The trash's own functions need
// the write turn and the file locks (they run inside change).

// trashPath is the trash file, or "" when the trash is kept in memory.
func (s *Store) trashPath() string {
	if s.stateDir == "" || s.path == "" {
		return ""
	}
	return filepath.Join(s.stateDir, "trash", filepath.Base(journalPath(s.stateDir, s.path)))
}

// readTrash returns what the trash holds, expired entries left out. A line
// that does not parse is skipped.
func (s *Store) readTrash(now time.Time) ([]Trashed, error) {
	all, err := s.readAllTrash()
	return s.unexpired(all, now), err
}

// readAllTrash returns every entry of the trash.
func (s *Store) readAllTrash() ([]Trashed, error) {
	p := s.trashPath()
	if p == "" {
		return slices.Clone(s.memTrash), nil
	}
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read trash %s: %w", p, err)
	}
	var all []Trashed
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		var t Trashed
		if json.Unmarshal(line, &t) == nil && validID(t.ID) {
			all = append(all, t)
		}
	}
	return all, nil
}

// unexpired returns the entries of items removed no longer ago than the
// tombstones are kept and whose tombstone is still the one Remove made: a
// deletion made since on another device (a Forget that won the merge)
// takes the entry out of this device's trash too.
func (s *Store) unexpired(items []Trashed, now time.Time) []Trashed {
	return slices.DeleteFunc(items, func(t Trashed) bool {
		e, ok := s.recs[t.ID]
		return now.Sub(t.Removed) > s.ttl || ok && !e.Deleted.IsZero() && !e.Deleted.Equal(t.Removed)
	})
}

// updateTrashLocked applies fn (nil: nothing) to the unexpired entries of
// the trash and keeps the result if fn, which reports whether it changed
// anything, or the expiry did.
func (s *Store) updateTrashLocked(now time.Time, fn func([]Trashed) ([]Trashed, bool)) error {
	all, err := s.readAllTrash()
	if err != nil {
		return err
	}
	n := len(all)
	items := s.unexpired(all, now)
	changed := len(items) != n
	if fn != nil {
		var did bool
		items, did = fn(items)
		changed = changed || did
	}
	switch p := s.trashPath(); {
	case !changed:
		return nil
	case p == "":
		s.memTrash = items
		return nil
	default:
		return writeTrash(p, items)
	}
}

// writeTrash replaces the trash file with items, or removes it when there
// are none.
func writeTrash(p string, items []Trashed) error {
	if len(items) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("empty trash %s: %w", p, err)
		}
		return nil
	}
	var buf bytes.Buffer
	for _, t := range items {
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("write trash: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := durable.WriteFileAtomic(p, buf.Bytes()); err != nil {
		return fmt.Errorf("write trash: %w", err)
	}
	return nil
}

// trashLocked puts es in the trash, each in place of an earlier version
// of it.
func (s *Store) trashLocked(es []Entry, now time.Time) error {
	in := make(map[string]bool, len(es))
	for _, e := range es {
		in[e.ID] = true
	}
	return s.updateTrashLocked(now, func(items []Trashed) ([]Trashed, bool) {
		items = slices.DeleteFunc(items, func(t Trashed) bool { return in[t.ID] })
		for _, e := range es {
			items = append(items, Trashed{Entry: e, Removed: now})
		}
		return items, true
	})
}

// trashedLocked returns the trash's entry id.
func (s *Store) trashedLocked(id string, now time.Time) (Trashed, bool, error) {
	items, err := s.readTrash(now)
	if err != nil {
		return Trashed{}, false, err
	}
	i := slices.IndexFunc(items, func(t Trashed) bool { return t.ID == id })
	if i < 0 {
		return Trashed{}, false, nil
	}
	return items[i], true, nil
}

// dropTrashed takes the entries for which gone is true out of the trash.
func (s *Store) dropTrashed(gone func(Trashed) bool) error {
	return s.change(func(_ map[string]Entry, now time.Time) ([]string, bool, error) {
		return nil, false, s.updateTrashLocked(now, func(items []Trashed) ([]Trashed, bool) {
			n := len(items)
			items = slices.DeleteFunc(items, gone)
			return items, len(items) != n
		})
	})
}

// Trash lists what Remove put in the trash and Restore can bring back,
// the last removed first. Entries live again (a Remove that failed after
// trashing, a Restore that had not yet emptied its place) are left out.
// It reads the trash file (the in-memory trash in the write turn) and
// never waits for another process.
func (s *Store) Trash() ([]Trashed, error) {
	var all []Trashed
	var err error
	if s.trashPath() == "" {
		s.writeTurn.Lock()
		all, err = s.readAllTrash()
		s.writeTurn.Unlock()
	} else {
		all, err = s.readAllTrash()
	}
	if err != nil {
		return nil, err
	}
	recs, now := s.view().recs, s.clock()
	items := slices.DeleteFunc(all, func(t Trashed) bool {
		e, ok := recs[t.ID]
		return now.Sub(t.Removed) > s.ttl || ok && !e.Deleted.Equal(t.Removed)
	})
	slices.SortStableFunc(items, func(a, b Trashed) int { return b.Removed.Compare(a.Removed) })
	return items, nil
}

// EmptyTrash deletes everything in the trash for good and returns how
// many entries it held; Restore can no longer bring them back.
func (s *Store) EmptyTrash() (int, error) {
	n := 0
	err := s.dropTrashed(func(Trashed) bool { n++; return true })
	if err != nil {
		return 0, fmt.Errorf("empty trash: %w", err)
	}
	return n, nil
}

// pruneTrashLocked drops the expired entries of the trash; it needs the
// write turn. A failure is left for the next change of the trash.
func (s *Store) pruneTrashLocked() {
	if s.jr != nil {
		if s.jr.lock.Lock() != nil {
			return
		}
		defer s.jr.lock.Unlock()
	}
	_ = s.updateTrashLocked(s.clock(), nil)
}
