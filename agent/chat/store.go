package chat

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Store keeps one file per chat on disk and the chats in memory: their
// headers (Info) from the start, their messages once the chat is changed.
// A chat only read (Get, Search) is read from its file each time, so a
// thousand chats cost their headers, not their messages. A change applies
// in memory at once; its file write may follow (Persist), and writes of one
// chat never go back to an older version.
type Store struct {
	dir string
	now func() time.Time

	mu      sync.Mutex
	chats   map[string]*Chat
	partial map[string]bool   // chats whose messages are only in their file
	ver     map[string]uint64 // in-memory version of each chat
	errs    []error           // files that could not be read at load
	forms   []scrubForm       // the texts of forgotten memories (see Scrub), longest first
	gen     map[string]uint64 // changes of each chat in memory, so search re-indexes only those

	search searchIndex

	wmu     sync.Mutex           // serialises file writes and removals
	written map[string]uint64    // version of each chat on disk
	stamps  map[string]fileStamp // each chat file as this store last read or wrote it (see Rescan)
}

// Load reads the header of every chat file of dir (a missing dir is no
// chats); the messages stay in the files until a chat is read or changed.
// Files that do not parse are skipped and remembered (see LoadErrors).
func Load(dir string, now func() time.Time) (*Store, error) {
	cs := &Store{dir: dir, now: now, chats: map[string]*Chat{}, partial: map[string]bool{},
		ver: map[string]uint64{}, gen: map[string]uint64{}, written: map[string]uint64{}, stamps: map[string]fileStamp{}}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return cs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load chats %s: %w", dir, err)
	}
	var buf []byte
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !IsChatFile(name) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			cs.stamps[strings.TrimSuffix(name, ".json")] = stampOf(fi)
		}
		var info Info
		info, buf, err = readChatHeader(filepath.Join(dir, name), buf)
		if err != nil {
			cs.errs = append(cs.errs, fmt.Errorf("load chat: %w", err))
			continue
		}
		cs.chats[info.ID] = &Chat{Info: info}
		cs.partial[info.ID] = true
	}
	removeStaleTemps(dir, now())
	return cs, nil
}

// LoadErrors are the chat files that could not be read at load: they are
// skipped, not shown, and left as they are.
func (cs *Store) LoadErrors() []error { return cs.errs }

// validID reports whether id can name a chat file.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// newID returns a fresh ID: the creation time (so files sort) and
// random bits.
func newID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (cs *Store) path(id string) string { return filepath.Join(cs.dir, id+".json") }

// Create makes and saves a new chat.
func (cs *Store) Create(autoRecall bool, project string) (Info, error) {
	now := cs.now()
	c := &Chat{Info: Info{ID: newID(now), Created: now, Updated: now, AutoRecall: autoRecall,
		Project: project}}
	cs.mu.Lock()
	for cs.chats[c.ID] != nil {
		c.ID = newID(now)
	}
	cs.chats[c.ID] = c
	cs.ver[c.ID]++
	snap, ver := *c, cs.ver[c.ID]
	cs.mu.Unlock()
	if err := cs.Persist(snap, ver); err != nil {
		cs.mu.Lock()
		delete(cs.chats, c.ID)
		cs.mu.Unlock()
		return Info{}, err
	}
	return c.Info, nil
}

// CreateTemporary makes a chat that lives in memory only: no file is ever
// written for it, so it is gone after the process ends.
func (cs *Store) CreateTemporary() Info {
	now := cs.now()
	c := &Chat{Info: Info{ID: newID(now), Created: now, Updated: now, Temporary: true}}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for cs.chats[c.ID] != nil {
		c.ID = newID(now)
	}
	cs.chats[c.ID] = c
	cs.ver[c.ID]++
	return c.Info
}

// List returns the chats, most recently updated first.
func (cs *Store) List() []Info {
	cs.mu.Lock()
	out := make([]Info, 0, len(cs.chats))
	for _, c := range cs.chats {
		out = append(out, c.Info)
	}
	cs.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID
	})
	return out
}

// Get returns a deep enough copy of a chat that the caller may keep it. A
// chat whose messages are not in memory is read from its file, and stays
// out of memory.
func (cs *Store) Get(id string) (Chat, error) {
	cs.mu.Lock()
	c, ok := cs.chats[id]
	partial := cs.partial[id]
	if !ok || partial {
		cs.mu.Unlock()
		if !ok {
			return Chat{}, fmt.Errorf("chat %q: %w", id, ErrNotFound)
		}
		return cs.readPartial(id)
	}
	defer cs.mu.Unlock()
	out := *c
	out.Messages = append([]Message(nil), c.Messages...)
	out.Branches = append([]Branch(nil), c.Branches...)
	out.Deleted = append([]string(nil), c.Deleted...)
	out.Scrubbed = append([]string(nil), c.Scrubbed...)
	return out, nil
}

// Info returns a chat's info, without copying its messages.
func (cs *Store) Info(id string) (Info, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.chats[id]
	if !ok {
		return Info{}, fmt.Errorf("chat %q: %w", id, ErrNotFound)
	}
	return c.Info, nil
}

// Update changes a chat with fn and saves it. fn returns whether anything
// changed.
func (cs *Store) Update(id string, fn func(c *Chat) bool) error {
	snap, ver, err := cs.Change(id, fn)
	if err != nil || ver == 0 {
		return err
	}
	return cs.Persist(snap, ver)
}

// Change changes a chat in memory with fn and returns the new version to
// persist (0 when fn changed nothing). What fn adds is scrubbed of the
// memories the store forgot (see Scrub).
func (cs *Store) Change(id string, fn func(c *Chat) bool) (Chat, uint64, error) {
	if err := cs.readIn(id); err != nil {
		return Chat{}, 0, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.chats[id]
	if !ok {
		return Chat{}, 0, fmt.Errorf("chat %q: %w", id, ErrNotFound)
	}
	next := *c
	next.Messages = append([]Message(nil), c.Messages...)
	if !fn(&next) {
		return Chat{}, 0, nil
	}
	for i := range next.Messages {
		if next.Messages[i].ID == "" {
			next.Messages[i].ID = NewMessageID()
		}
	}
	scrubChat(&next, cs.forms)
	next.Updated = cs.now()
	*c = next
	cs.ver[id]++
	cs.gen[id]++
	snap := next
	snap.Messages = append([]Message(nil), next.Messages...)
	return snap, cs.ver[id], nil
}

// Persist writes version ver of a chat, unless a newer version is on disk
// already or the chat was deleted meanwhile. The write merges in what
// other processes wrote to the file (see writeMerged), and so does the
// chat in memory.
func (cs *Store) Persist(c Chat, ver uint64) error {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.mu.Lock()
	_, exists := cs.chats[c.ID]
	cs.mu.Unlock()
	if !exists || c.Temporary || cs.written[c.ID] >= ver {
		return nil
	}
	merged, err := cs.writeMerged(c)
	if err != nil {
		return fmt.Errorf("save chat %s: %w", c.ID, err)
	}
	cs.written[c.ID] = ver
	cs.mu.Lock()
	if m := cs.chats[c.ID]; m != nil {
		*m = mergeChat(merged, *m)
		scrubChat(m, cs.forms)
		delete(cs.partial, c.ID)
		cs.gen[c.ID]++
	}
	cs.mu.Unlock()
	return nil
}

// Remove deletes a chat and its file.
func (cs *Store) Remove(id string) error {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.mu.Lock()
	c, ok := cs.chats[id]
	delete(cs.chats, id)
	delete(cs.partial, id)
	delete(cs.gen, id)
	cs.mu.Unlock()
	if !ok {
		return fmt.Errorf("chat %q: %w", id, ErrNotFound)
	}
	if c.Temporary {
		return nil
	}
	if err := os.Remove(cs.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete chat %s: %w", id, err)
	}
	_ = os.Remove(cs.path(id) + ".lock") // only a lock: nothing is lost
	delete(cs.stamps, id)
	return nil
}
