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
	"strings"
	"time"
	"unicode/utf8"

	"engram/memory/durable"
)

// ErrNotPurged: a memory was forgotten (the file holds its tombstone
// only) but its text could not be taken out of every other file the store
// keeps; the error says which and why. Forgetting it again finishes the
// job.
var ErrNotPurged = errors.New("forgotten, but its text is still in a file of this device")

// purgeSet is what a purge takes out: the records of IDs and every
// writing of texts, and the texts flag reports (nil: none). With
// keepTrash the trash is left as it is (a Remove's purge).
type purgeSet struct {
	ids       map[string]bool
	texts     map[string]bool
	flag      func(text string) bool
	keepTrash bool
	cached    [][]byte // forms, until a text is added
	idForms   [][]byte // the IDs as JSON strings
}

func newPurgeSet(gone []Entry, flag func(string) bool) *purgeSet {
	p := &purgeSet{ids: map[string]bool{}, texts: map[string]bool{}, flag: flag}
	for _, e := range gone {
		p.ids[e.ID] = true
		p.add(e.Text)
	}
	return p
}

func (p *purgeSet) add(text string) {
	if text != "" && !p.texts[text] {
		p.texts[text] = true
		p.cached = nil
	}
}

// holds reports whether a record of id with text is one to take out, and
// learns its text.
func (p *purgeSet) holds(id, text string) bool {
	if text == "" {
		return false
	}
	if p.ids[id] || p.texts[text] || p.flag != nil && p.flag(text) {
		p.add(text)
		return true
	}
	return false
}

// purge takes the texts of ps out of every file the store keeps besides
// the memory file, which already holds their tombstones: the trash
// (unless ps.keepTrash), the journal and the backups (copies set aside by
// a legacy upgrade or Repair, merged conflict copies). It takes the write
// turn and the file locks, as a change does.
func (s *Store) purge(ps *purgeSet) error {
	err := s.change(func(_ map[string]Entry, now time.Time) ([]string, bool, error) {
		return nil, false, s.purgeLocked(ps, now)
	})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotPurged, err)
	}
	return nil
}

// purgeLocked is purge in the write turn, under the file locks. The trash
// and the journal go first, so the texts they held are scrubbed from the
// backups too.
func (s *Store) purgeLocked(ps *purgeSet, now time.Time) error {
	if !ps.keepTrash {
		err := s.updateTrashLocked(now, func(items []Trashed) ([]Trashed, bool) {
			n := len(items)
			items = slices.DeleteFunc(items, func(t Trashed) bool { return ps.holds(t.ID, t.Text) })
			return items, len(items) != n
		})
		if err != nil {
			return err
		}
	}
	if s.jr != nil {
		if err := s.jr.purge(ps); err != nil {
			return err
		}
	}
	var errs []error
	for _, p := range s.backupFiles() {
		if err := scrubFile(p, ps); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// purge rewrites the journal without the records that hold a text of ps
// (the purged entries' tombstones, which have none, stay) and without any
// line that does not parse and holds one of its texts written as JSON (a
// record cut by a crash); every other line is kept as it was. It needs the
// journal's lock.
func (j *journal) purge(ps *purgeSet) error {
	data, err := os.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("purge journal %s: %w", j.path, err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	keep := make([][]byte, 0, len(lines))
	records := 0
	for _, line := range lines {
		if ps.few() && !ps.mentioned(line) {
			keep = append(keep, line) // a record of another entry (or not a record)
			records++
			continue
		}
		var r journalRecord
		switch {
		case json.Unmarshal(line, &r) == nil && validID(r.ID):
			if !ps.holds(r.ID, r.Text) {
				keep = append(keep, line)
				records++
			}
		case !containsAny(line, ps.forms()):
			keep = append(keep, line)
		}
	}
	if len(keep) == len(lines) {
		return nil
	}
	if err := durable.WriteFileAtomic(j.path, bytes.Join(keep, nil)); err != nil {
		return fmt.Errorf("purge journal: %w", err)
	}
	j.lines = records
	return nil
}

// backupFiles lists the copies of the store's file set aside: the backups
// folder of the state directory (merged conflict copies, broken files
// Repair replaced), and beside the file the legacy copies an upgrade kept,
// Repair's broken copies without a state directory and conflict copies
// left in place.
func (s *Store) backupFiles() []string {
	if s.path == "" {
		return nil
	}
	var out []string
	if s.stateDir != "" {
		dir := filepath.Join(s.stateDir, "backups")
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if de.Type().IsRegular() {
				out = append(out, filepath.Join(dir, de.Name()))
			}
		}
	}
	dir, base := filepath.Dir(s.path), filepath.Base(s.path)
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		n := de.Name()
		if de.Type().IsRegular() && (strings.HasPrefix(n, base+".legacy-") || strings.HasPrefix(n, base+".broken-")) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return append(out, s.conflictCopies()...)
}

// scrubFile takes the texts of ps out of a copy of a memory file: every
// JSON string that is one of them becomes "", and the rest of the file
// stays byte for byte. Entries of the purged IDs that still hold a text
// (an older version) have it taken out too. A file in which a text is
// left even so (written in some other way) is removed: whatever else it
// held was merged into the store when it was set aside.
func scrubFile(p string, ps *purgeSet) error {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("scrub backup %s: %w", p, err)
	}
	if ps.few() && !ps.mentioned(data) {
		return nil
	}
	for _, e := range copyEntries(data) {
		ps.holds(e.ID, e.Text)
	}
	out := []byte(ps.replacer().Replace(string(data)))
	left := false
	for _, e := range copyEntries(out) {
		left = left || ps.holds(e.ID, e.Text)
	}
	switch {
	case left:
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("remove backup %s, which holds a forgotten memory: %w", p, err)
		}
		return nil
	case bytes.Equal(out, data):
		return nil
	}
	if err := durable.WriteFileAtomic(p, out); err != nil {
		return fmt.Errorf("scrub backup: %w", err)
	}
	return nil
}

// few reports whether ps is small enough (a handful of IDs and texts, no
// flag) that looking for its forms in a line or a file is cheaper than
// parsing it.
func (p *purgeSet) few() bool { return p.flag == nil && len(p.ids)+len(p.texts) <= 8 }

// replacer replaces every form of the texts with "", in one pass.
func (p *purgeSet) replacer() *strings.Replacer {
	forms := p.forms()
	args := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		args = append(args, string(f), `""`)
	}
	return strings.NewReplacer(args...)
}

// mentioned reports whether data holds one of the IDs or texts of ps as
// JSON writes them: a file that holds none has nothing to scrub.
func (p *purgeSet) mentioned(data []byte) bool {
	if p.idForms == nil {
		for id := range p.ids {
			p.idForms = append(p.idForms, jsonString(nil, id))
		}
	}
	return containsAny(data, p.idForms) || containsAny(data, p.forms())
}

// copyEntries reads the entries of a copy of a memory file: all of them
// when it parses, else those Repair could salvage.
func copyEntries(data []byte) []Entry {
	if fc, err := parseDoc(data, time.Time{}); err == nil {
		return fc.entries
	}
	return salvageEntries(data, time.Time{})
}

// forms are the ways a JSON file may write the texts, quotes included:
// as the store writes them, with HTML characters escaped (Go's
// encoding/json) and with everything past ASCII escaped.
func (p *purgeSet) forms() [][]byte {
	if p.cached != nil {
		return p.cached
	}
	out := [][]byte{}
	for text := range p.texts {
		out = appendForms(out, text)
	}
	// Longest first, so a text inside another is not replaced first.
	slices.SortFunc(out, func(a, b []byte) int { return len(b) - len(a) })
	p.cached = out
	return out
}

// appendForms appends to out the forms of text it lacks.
func appendForms(out [][]byte, text string) [][]byte {
	html, _ := json.Marshal(text)
	for _, f := range [][]byte{jsonString(nil, text), html, asciiJSON(text)} {
		if !slices.ContainsFunc(out, func(o []byte) bool { return bytes.Equal(o, f) }) {
			out = append(out, f)
		}
	}
	return out
}

// asciiJSON writes s as a JSON string with every character past ASCII
// escaped (\uXXXX, as surrogate pairs past the basic plane).
func asciiJSON(s string) []byte {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			q := jsonString(nil, string(r))
			b = append(b, q[1:len(q)-1]...)
		case r > 0xffff:
			r -= 0x10000
			b = fmt.Appendf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b = fmt.Appendf(b, `\u%04x`, r)
		}
	}
	return append(b, '"')
}

func containsAny(b []byte, forms [][]byte) bool {
	return slices.ContainsFunc(forms, func(f []byte) bool { return len(f) > 0 && bytes.Contains(b, f) })
}
