package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"engram/memory/durable"
)

// MergeReport says what a store took from conflict copies since it was
// last asked (see Store.TakeMergeReport).
type MergeReport struct {
	Copies  int // conflict copies merged and moved to the backups
	Entries int // entries they added or changed
	// Errs are the copies that could not be merged (they do not parse);
	// they are left where they are.
	Errs []error
}

// IsConflictCopy reports whether name (a file name, no directory) is a
// conflict copy that a sync tool wrote beside the store file named base
// ("memory.json"):
//
//   - Syncthing:  memory.sync-conflict-20261201-101010-ABCDEFG.json
//   - Dropbox:    memory (conflicted copy 2026-12-01).json,
//     memory (Sam's conflicted copy 2026-12-01).json
//   - Nextcloud:  memory (conflicted copy 2026-12-01 101010).json
//   - ownCloud:   memory_conflict-20261201-101010.json
func IsConflictCopy(base, name string) bool {
	return conflictPattern(base).MatchString(name)
}

// conflictPattern matches the conflict copies of the file named base.
func conflictPattern(base string) *regexp.Regexp {
	ext := filepath.Ext(base)
	stem := regexp.QuoteMeta(strings.TrimSuffix(base, ext))
	qext := regexp.QuoteMeta(ext)
	return regexp.MustCompile(`^` + stem + `(\.sync-conflict-\d{8}-\d{6}-[A-Za-z0-9]+` +
		`| \([^()]*conflicted copy[^()]*(\(\d+\))?\)` +
		`|_conflict-\d{8}-\d{6})` + qext + `$`)
}

// conflictCopies lists the conflict copies beside the store file.
func (s *Store) conflictCopies() []string {
	dir, base := filepath.Dir(s.path), filepath.Base(s.path)
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var re *regexp.Regexp
	var out []string
	for _, de := range des {
		n := de.Name()
		if !de.Type().IsRegular() || n == base || !strings.Contains(n, "onflict") {
			continue
		}
		if re == nil {
			re = conflictPattern(base)
		}
		if re.MatchString(n) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// mergeConflictCopiesLocked merges the conflict copies beside the file into
// the records by the rules of every merge (mergeCopy), then moves each to
// the backups folder of the state directory, and counts them in the
// store's MergeReport. Without a state directory copies are merged but
// left in place, since there is nowhere of the device's own to keep them.
// It reports whether the records changed; it needs the write turn and
// the file locks.
func (s *Store) mergeConflictCopiesLocked() (bool, error) {
	copies := s.conflictCopies()
	if len(copies) == 0 {
		return false, nil
	}
	changed := false
	now := s.clock()
	for _, p := range copies {
		data, st, err := readStoreFile(p)
		if err != nil {
			continue // gone already, or unreadable: not ours to judge
		}
		fc, err := parseDoc(data, st.ModTime().UTC())
		if err != nil {
			s.mu.Lock()
			s.merged.Errs = append(s.merged.Errs, fmt.Errorf("%s: %w", filepath.Base(p), err))
			s.mu.Unlock()
			continue
		}
		clampFuture(fc.entries, now)
		seen, spread, err := s.vetCopyLocked(fc)
		if err != nil {
			return changed, err
		}
		res := mergeCopy(s.recs, s.sawLocked(), fc.entries, seen, s.forked, now)
		changed = changed || spread
		s.seen.merge(seen)
		if err := s.stampMerged(res, now); err != nil {
			return changed, err
		}
		n := 0
		for id, e := range res.recs {
			if o, ok := s.recs[id]; !ok || !sameVersion(o, e) {
				n++
			}
		}
		if n > 0 {
			s.replace(res.recs)
			changed = true
		}
		if s.stateDir != "" {
			if err := moveToBackups(p, filepath.Join(s.stateDir, "backups"), now); err != nil {
				return changed, err
			}
		}
		s.mu.Lock()
		s.merged.Copies++
		s.merged.Entries += n
		s.mu.Unlock()
	}
	return changed, nil
}

// moveToBackups moves the file at p into dir (created 0700), named after
// it with the time if the name is taken.
func moveToBackups(p, dir string, now time.Time) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("back up %s: %w", p, err)
	}
	name := filepath.Join(dir, filepath.Base(p))
	for i := 2; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = filepath.Join(dir, fmt.Sprintf("%s-%s-%d", now.Format("20060102T150405Z"), filepath.Base(p), i))
	}
	if err := os.Rename(p, name); err != nil {
		// Another file system: copy, then remove.
		data, rerr := os.ReadFile(p)
		if rerr != nil {
			return fmt.Errorf("back up %s: %w", p, err)
		}
		if werr := durable.WriteFileAtomic(name, data); werr != nil {
			return fmt.Errorf("back up %s: %w", p, werr)
		}
		if rerr := os.Remove(p); rerr != nil {
			return fmt.Errorf("back up %s: %w", p, rerr)
		}
	}
	return durable.SyncDir(dir)
}

// TakeMergeReport returns what the store merged from conflict copies
// since the last call, and starts counting again: the app shows it as a
// notice ("merged 3 memories from conflict copies").
func (s *Store) TakeMergeReport() MergeReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.merged
	s.merged = MergeReport{}
	return r
}
