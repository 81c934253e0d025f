package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"engram/memory/durable"
)

// DefaultJournalKeep is how long a change stays in the journal after the
// file holds it, when Options.JournalKeep is 0.
const DefaultJournalKeep = 7 * 24 * time.Hour

// journal is this device's own record of its changes to one store: one
// JSON line per changed entry (the whole entry, with its Rev), appended
// and fsynced before the file is written, under a lock of its own in the
// state directory (Options.StateDir, which cmd/ resolves to
// $XDG_STATE_HOME/engram). It is never synced. A store opening reads it and
// puts back what the file lacks, so this device's changes come back when
// memory.json was replaced by a copy lacking them, deleted, or does not
// parse. It keeps the latest record of each entry; once it is longer than
// compactLines, compaction drops the records the file holds or has seen
// that are older than keep (a week by default: the time a sync tool may
// take to bring back a stale copy). About 270 bytes per add.
type journal struct {
	path string
	lock *durable.Locker
	keep time.Duration
	// lines is the number of records in the file as last read, appended
	// or compacted; a write compacts once it reaches checkAt.
	lines, checkAt int
}

// journalRecord is one line of the journal.
type journalRecord struct {
	At time.Time `json:"at"` // when this device made the change
	Entry
}

// journalPath names the journal of the store at storePath inside dir:
// the store's folder name and a hash of its path, so a project's store and
// the global one do not share a journal.
func journalPath(dir, storePath string) string {
	base := ProjectSlug(filepath.Dir(storePath))
	return filepath.Join(dir, "journal", base+".jsonl")
}

// openJournal opens (creating its directory, mode 0700) the journal of the
// store at storePath under stateDir.
func openJournal(stateDir, storePath string, keep time.Duration) (*journal, error) {
	path := journalPath(stateDir, storePath)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	l, err := durable.OpenLock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if keep <= 0 {
		keep = DefaultJournalKeep
	}
	return &journal{path: path, lock: l, keep: keep, checkAt: compactLines}, nil
}

// read returns the latest record of each entry in the journal. A line
// that does not parse (the end of a record cut by a crash) is skipped.
func (j *journal) read() (map[string]journalRecord, error) {
	data, err := os.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		j.lines = 0
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal %s: %w", j.path, err)
	}
	recs := map[string]journalRecord{}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r journalRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil || !validID(r.ID) || r.Rev.IsZero() {
			continue
		}
		n++
		recs[r.ID] = r
	}
	j.lines = n
	return recs, nil
}

// append adds the entries to the journal and syncs it.
func (j *journal) append(es []Entry, at time.Time) error {
	if len(es) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, e := range es {
		b, err := json.Marshal(journalRecord{At: at, Entry: e})
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.lines += len(es)
	return nil
}

// compactLines is the journal length from which a write compacts it.
const compactLines = 2048

// compact rewrites the journal with the latest record of each entry,
// leaving out those the file holds (held reports it) that are older than
// keep. It does nothing when nothing would go.
func (j *journal) compact(recs map[string]journalRecord, held func(Entry) bool, now time.Time) error {
	var keep []journalRecord
	for _, r := range recs {
		if now.Sub(r.At) > j.keep && held(r.Entry) {
			continue
		}
		keep = append(keep, r)
	}
	j.checkAt = max(compactLines, 2*len(keep))
	if len(keep) == j.lines {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range keep {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := durable.WriteFileAtomic(j.path, buf.Bytes()); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	j.lines = len(keep)
	return nil
}
