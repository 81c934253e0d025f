package memory

import (
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
// JSON line per changed entry (the whole entry, with its Rev, and what the
// store had seen when it made the change), appended and fsynced before the
// file is written, under a lock of its own in the state directory
// (Options.StateDir, which cmd/ resolves to $XDG_STATE_HOME/engram). It is
// never synced. A store opening reads it and puts back what the file
// lacks, so this device's changes come back when memory.json was replaced
// by a copy lacking them, deleted, or does not parse. It keeps the latest
// record of each entry; once it is longer than compactLines, compaction
// drops the records the file holds or has seen that are older than keep (a
// week by default: the time a sync tool may take to bring back a stale
// copy). About 320 bytes per add.
//
// Its first line is a header (journalHeader) naming the replica the store
// stamps its changes with, which the journal vouches for: it holds the
// latest record of every change of that replica with a counter above
// Since. A store that cannot take the journal's word (there is no header,
// the header was written on another machine, a record was lost, or the
// file does not hold what compaction dropped) mints a new replica, and the
// records stay, as entries of the old one.
type journal struct {
	path string
	lock *durable.Locker
	keep time.Duration
	// lines is the number of records in the file as last read, appended
	// or compacted; a write compacts once it reaches checkAt, which is
	// never less than minLines (compactLines; tests make it smaller).
	lines, checkAt, minLines int
	// head is the header as last read or written; a zero Replica when the
	// file has none.
	head journalHeader
	// oldest is the earliest At of the records in the file as last read,
	// appended or compacted (zero when it holds none): until it is keep
	// old, a compaction could drop nothing.
	oldest time.Time
	// lost says the last read found a line that did not parse: a record
	// may be lost. A crash leaves at most the last line cut, but so does a
	// journal cut short (a disk fault, a restore) after losing the records
	// that followed, and the two look the same.
	lost bool
}

// journalHeader is the first line of a journal.
type journalHeader struct {
	Replica string `json:"replica"` // the replica the store stamps with
	Machine string `json:"machine"` // the fingerprint of the machine it was minted on
	// Since: the journal holds the latest record of every change of the
	// replica with a counter above it (compaction raises it).
	Since uint64 `json:"since"`
}

// journalRecord is one line of the journal.
type journalRecord struct {
	At time.Time `json:"at"` // when this device made the change
	// Seen is what the store had seen when it made the change, so a
	// version it had seen is told from a concurrent one when the journal
	// is merged with the file at Open.
	Seen Vector `json:"seen,omitempty"`
	Entry
}

// journalPath names the journal of the store at storePath inside dir:
// the names of the store's folder and file and a hash of its path, so
// every memory file (a project's store, the global one, an export or a
// legacy file beside a store) has a journal of its own.
func journalPath(dir, storePath string) string {
	name := filepath.Base(filepath.Dir(storePath)) + "-" + filepath.Base(storePath)
	return filepath.Join(dir, "journal", slug(name, storePath, "memory")+".jsonl")
}

// folderJournalPath is where versions before journals were keyed by file
// kept the journal of every store in storePath's folder.
func folderJournalPath(dir, storePath string) string {
	return filepath.Join(dir, "journal", ProjectSlug(filepath.Dir(storePath))+".jsonl")
}

// openJournal opens (creating its directory, mode 0700) the journal of the
// store at storePath under stateDir. The journal of a memory.json takes
// over the folder-keyed journal older versions kept for its folder.
func openJournal(stateDir, storePath string, keep time.Duration) (*journal, error) {
	path := journalPath(stateDir, storePath)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	l, err := durable.OpenLock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if filepath.Base(storePath) == "memory.json" {
		if err := migrateJournal(folderJournalPath(stateDir, storePath), path, l); err != nil {
			l.Close()
			return nil, err
		}
	}
	if keep <= 0 {
		keep = DefaultJournalKeep
	}
	return &journal{path: path, lock: l, keep: keep, checkAt: compactLines, minLines: compactLines}, nil
}

// migrateJournal moves the folder-keyed journal old to path, under path's
// lock, unless path already exists (another process moved it first).
func migrateJournal(old, path string, l *durable.Locker) error {
	if _, err := os.Stat(old); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := l.Lock(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer l.Unlock()
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.Rename(old, path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("move journal %s to %s: %w", old, path, err)
	}
	os.Remove(old + ".lock")
	return nil
}

// read returns the latest record of each entry in the journal, and keeps
// its header in j.head. A line that does not parse (the end of a record
// cut by a crash, or anything else) is skipped alone, whatever its length,
// and sets j.lost.
func (j *journal) read() (map[string]journalRecord, error) {
	j.head, j.lost, j.lines, j.oldest = journalHeader{}, false, 0, time.Time{}
	data, err := os.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal %s: %w", j.path, err)
	}
	recs := map[string]journalRecord{}
	n := 0
	for first := true; len(data) > 0; first = false {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 || first && parseHeader(line, &j.head) {
			continue
		}
		var r journalRecord
		if json.Unmarshal(line, &r) != nil || !validID(r.ID) || r.Rev.IsZero() {
			j.lost = true
			continue
		}
		n++
		recs[r.ID] = r
		j.noteAt(r.At)
	}
	j.lines = n
	return recs, nil
}

// parseHeader reads line as a journal header into h, if it is one.
func parseHeader(line []byte, h *journalHeader) bool {
	var x journalHeader
	if !bytes.Contains(line, []byte(`"replica"`)) || json.Unmarshal(line, &x) != nil || !validID(x.Replica) {
		return false
	}
	*h = x
	return true
}

// rewrite replaces the journal with the header and the records.
func (j *journal) rewrite(head journalHeader, recs []journalRecord) error {
	b, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	buf := bytes.NewBuffer(append(b, '\n'))
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := durable.WriteFileAtomic(j.path, buf.Bytes()); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	j.head, j.lost, j.lines, j.oldest = head, false, len(recs), time.Time{}
	for _, r := range recs {
		j.noteAt(r.At)
	}
	return nil
}

// append adds the entries to the journal, each with what the store had
// seen, and syncs it. After a last line cut short (a crash or a full disk
// mid-append) the records start on a new line, so the cut line is the
// only one lost. A journal deleted under a running store is created again
// without a header, so the next Open takes its word for nothing.
func (j *journal) append(es []Entry, seen Vector, at time.Time) error {
	if len(es) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, e := range es {
		b, err := json.Marshal(journalRecord{At: at, Seen: seen, Entry: e})
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	data := buf.Bytes()
	cut, err := endsCut(f)
	if cut {
		data = append([]byte{'\n'}, data...)
	}
	if err == nil {
		_, err = f.Write(data)
	}
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
	j.noteAt(at)
	return nil
}

// noteAt lowers oldest to at, the time of a record in the file.
func (j *journal) noteAt(at time.Time) {
	if j.oldest.IsZero() || at.Before(j.oldest) {
		j.oldest = at
	}
}

// youngerThanKeep reports whether every record in the file, as far as
// this process knows, is younger than keep at now: a compaction would
// drop none.
func (j *journal) youngerThanKeep(now time.Time) bool {
	return !j.oldest.IsZero() && now.Sub(j.oldest) <= j.keep
}

// endsCut reports whether f is not empty and does not end with a newline.
func endsCut(f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

// compactLines is the journal length from which a write compacts it.
const compactLines = 2048

// compact rewrites the journal with the latest record of each entry,
// leaving out those the file holds (held reports it) that are older than
// keep, and raises the header's Since past the counters of the replica's
// records it drops. It does nothing when nothing would go, or when the
// journal has no header of the replica (the store stamps with another
// that the next Open replaces).
func (j *journal) compact(recs map[string]journalRecord, replica string, held func(Entry) bool, now time.Time) error {
	if j.head.Replica != replica {
		return nil
	}
	var keep []journalRecord
	head := j.head
	for _, r := range recs {
		if now.Sub(r.At) > j.keep && held(r.Entry) {
			if r.Rev.Device == replica {
				head.Since = max(head.Since, r.Rev.N)
			}
			continue
		}
		keep = append(keep, r)
	}
	j.checkAt = max(j.minLines, 2*len(keep))
	if len(keep) == j.lines {
		return nil
	}
	if err := j.rewrite(head, keep); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	return nil
}
