package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tailscale/hujson"
)

// RepairReport says what Repair did.
type RepairReport struct {
	// Read is the number of entries read from the broken file.
	Read int
	// Entries is the number of live entries of the repaired file.
	Entries int
	// Backup is where the broken file was copied, byte for byte.
	Backup string
}

// ErrNothingToRepair is what Repair returns for a file that parses.
var ErrNothingToRepair = errors.New("memory file parses; nothing to repair")

// Repair replaces a file that does not parse with one that does, made of
// every entry that can still be read from it (each entry object that
// parses on its own) merged with the store's entries (after Open, those
// of the journal), as entries from an unrelated copy are: nothing is
// taken for deleted. The broken file is first copied to the backups folder
// of the state directory (without one, beside it as <file>.broken-<time>).
// A file that parses is left alone: ErrNothingToRepair.
func (s *Store) Repair() (RepairReport, error) {
	if s.path == "" {
		return RepairReport{}, ErrNothingToRepair
	}
	s.beginWrite()
	rep, err := s.repairLocked()
	s.endWrite()
	if err == nil {
		s.notify()
	}
	if err != nil && !errors.Is(err, ErrNothingToRepair) {
		err = fmt.Errorf("repair memory %s: %w", s.path, err)
	}
	return rep, err
}

func (s *Store) repairLocked() (RepairReport, error) {
	if s.closed {
		return RepairReport{}, ErrClosed
	}
	unlock, err := s.lockFiles()
	if err != nil {
		return RepairReport{}, err
	}
	defer unlock()
	s.unparsable = nil // read the file afresh
	_, _, err = s.syncLocked()
	if !errors.Is(err, ErrUnparsable) {
		if err == nil {
			return RepairReport{}, ErrNothingToRepair
		}
		return RepairReport{}, err
	}
	data, st, err := readStoreFile(s.path)
	if err != nil {
		return RepairReport{}, err
	}
	now := s.clock()
	var rep RepairReport
	if s.stateDir != "" {
		dir := filepath.Join(s.stateDir, "backups")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return RepairReport{}, fmt.Errorf("back up the broken file: %w", err)
		}
		rep.Backup, err = copyAside(filepath.Join(dir, filepath.Base(s.path)), "broken", data, now)
	} else {
		rep.Backup, err = copyAside(s.path, "broken", data, now)
	}
	if err != nil {
		return RepairReport{}, fmt.Errorf("back up the broken file: %w", err)
	}
	salvaged := salvageEntries(data, st.ModTime().UTC())
	clampFuture(salvaged, now)
	rep.Read = len(salvaged)
	res := mergeCopy(s.recs, sawNothing, salvaged, Vector{}, s.forked, now)
	if err := s.stampMerged(res, now); err != nil {
		return RepairReport{}, err
	}
	s.replace(res.recs)
	s.unparsable, s.ioErr = nil, nil
	s.disk = diskState{exists: true, stamp: st} // replaced unless it changed since it was read
	if err := s.writeLocked(); err != nil {
		return RepairReport{}, err
	}
	for _, e := range s.recs {
		if e.Live() {
			rep.Entries++
		}
	}
	return rep, nil
}

// salvageEntries reads every entry object of a broken file that parses on
// its own: each '{' inside the top level starts a candidate, up to its
// matching '}' (strings and comments skipped).
func salvageEntries(data []byte, fallback time.Time) []Entry {
	var raw []fileEntry
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			i = skipString(data, i)
		case c == '/' && i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*'):
			i = skipComment(data, i)
		case c == '{' && depth > 0:
			end := matchBrace(data, i)
			if end < 0 {
				continue
			}
			if fe, ok := salvageOne(data[i : end+1]); ok {
				raw = append(raw, fe)
				i = end
			} else {
				depth++
			}
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth = max(0, depth-1)
		}
	}
	return cleanEntries(raw, fallback)
}

// salvageOne parses one candidate entry object.
func salvageOne(b []byte) (fileEntry, bool) {
	std, err := hujson.Standardize(bytes.Clone(b))
	if err != nil || !json.Valid(std) {
		return fileEntry{}, false
	}
	fe, err := parseElement(bytes.TrimSpace(std))
	return fe, err == nil && fe.Text != ""
}

// skipString returns the index of the quote that ends the string starting
// at i (or the last index).
func skipString(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j
		case '\n':
			return j // a string cut by a line break: resynchronise there
		}
	}
	return len(data) - 1
}

// skipComment returns the index of the last byte of the comment at i.
func skipComment(data []byte, i int) int {
	if data[i+1] == '/' {
		if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(data) - 1
	}
	if j := bytes.Index(data[i+2:], []byte("*/")); j >= 0 {
		return i + 2 + j + 1
	}
	return len(data) - 1
}

// matchBrace returns the index of the '}' that closes the '{' at i, or -1.
func matchBrace(data []byte, i int) int {
	depth := 0
	for j := i; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			j = skipString(data, j)
		case c == '/' && j+1 < len(data) && (data[j+1] == '/' || data[j+1] == '*'):
			j = skipComment(data, j)
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// MergeFile merges the contents of another copy of a memory file (another
// device's memory.json, or an export) into the store by ID, with the rules
// of every merge (see Reload): newer versions win, concurrent edits keep
// the loser as history, nothing the store deleted comes back, and nothing
// the copy lacks is taken for deleted. ok is false, and nothing changes,
// when data is not a memory file (version 1 or 2): plain texts and JSON
// Lines are for AddAll. n counts the entries added or changed.
func (s *Store) MergeFile(data []byte, fallback time.Time) (n int, ok bool, err error) {
	fc, perr := parseDoc(data, fallback)
	if perr != nil || !isVersioned(data) {
		return 0, false, nil
	}
	err = s.change(func(recs map[string]Entry, now time.Time) ([]string, bool, error) {
		clampFuture(fc.entries, now)
		seen, spread, err := s.vetCopyLocked(fc)
		if err != nil {
			return nil, false, err
		}
		fc.seen = seen
		res := mergeCopy(recs, s.sawLocked(), fc.entries, seen, s.forked, now)
		var protect []string
		for id, e := range res.recs {
			if o, had := recs[id]; !had || !sameVersion(o, e) {
				n++
				protect = append(protect, id)
			}
		}
		clear(recs)
		for id, e := range res.recs {
			recs[id] = e
		}
		return protect, n > 0 || spread, nil
	})
	if err == nil {
		s.beginWrite()
		s.seen.merge(fc.seen)
		s.endWrite()
	}
	if err != nil {
		return 0, true, fmt.Errorf("merge memory file: %w", err)
	}
	return n, true, nil
}

// isVersioned reports whether data is an object-shaped memory file with a
// version (as engramctl export and every store write it).
func isVersioned(data []byte) bool {
	var doc struct {
		Version *flexInt `json:"version"`
	}
	std, err := hujson.Standardize(bytes.Clone(trimFile(data)))
	return err == nil && json.Unmarshal(std, &doc) == nil && doc.Version != nil
}
