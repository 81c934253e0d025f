package chat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// fileStamp is what a chat file's directory entry says of its content: a
// write by anyone changes its modification time or size.
type fileStamp struct {
	mod  time.Time
	size int64
}

// stampOf is the stamp of a file's info.
func stampOf(fi fs.FileInfo) fileStamp { return fileStamp{fi.ModTime(), fi.Size()} }

// stampLocked notes the stamp of chat id's file as this store last read or
// wrote it (none when it cannot be read). The caller holds wmu.
func (cs *Store) stampLocked(id string) {
	if fi, err := os.Stat(cs.path(id)); err == nil {
		cs.stamps[id] = stampOf(fi)
	} else {
		delete(cs.stamps, id)
	}
}

// Rescan takes in the chat files another process (engramctl chat, a second
// window, a sync tool) created or changed since this store last read or
// wrote them, and returns the IDs of the chats that changed: a new file is
// a new chat; a changed one is merged into the chat in memory as a write
// merges (see mergeChat), or, for a chat whose messages are only in its
// file, gives its new header. The store's own writes change nothing. A
// file removed by another process is left to the next start (a sync tool
// replacing a file may remove it for a moment), and one that does not
// parse is left as it is, as Load leaves it; its error is returned with
// the others.
func (cs *Store) Rescan() ([]string, error) {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	ents, err := os.ReadDir(cs.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("rescan chats %s: %w", cs.dir, err)
	}
	var changed []string
	var errs []error
	for _, e := range ents {
		if e.IsDir() || !IsChatFile(e.Name()) {
			continue
		}
		id := strings.TrimSuffix(e.Name(), ".json")
		fi, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		st := stampOf(fi)
		if old, seen := cs.stamps[id]; seen && old == st {
			continue
		}
		cs.stamps[id] = st
		took, err := cs.takeIn(id)
		if err != nil {
			errs = append(errs, err)
		}
		if took {
			changed = append(changed, id)
		}
	}
	return changed, errors.Join(errs...)
}

// takeIn merges chat id's file into the store and reports whether the chat
// changed.
func (cs *Store) takeIn(id string) (bool, error) {
	cs.mu.Lock()
	m, known := cs.chats[id]
	partial := cs.partial[id]
	cs.mu.Unlock()
	if !known || partial {
		info, _, err := readChatHeader(cs.path(id), nil)
		if err != nil {
			return false, fmt.Errorf("read chat: %w", err)
		}
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if m, known = cs.chats[id]; known && !cs.partial[id] {
			return false, nil // read in meanwhile: the next change merges the file
		}
		if known && sameFile(Chat{Info: m.Info}, Chat{Info: info}) {
			return false, nil
		}
		cs.chats[id] = &Chat{Info: info}
		cs.partial[id] = true
		cs.gen[id]++
		return true, nil
	}
	if m.Temporary {
		return false, nil
	}
	disk, err := readChatFile(cs.path(id))
	if err != nil {
		return false, fmt.Errorf("read chat %s: %w", id, err)
	}
	cs.scrub(&disk)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	m = cs.chats[id]
	if m == nil || cs.partial[id] {
		return false, nil
	}
	merged := mergeChat(disk, *m)
	scrubChat(&merged, cs.forms)
	if sameFile(merged, *m) {
		return false, nil
	}
	*m = merged
	cs.gen[id]++
	return true, nil
}

// IsChatFile reports whether name, a file of the chats folder, is a chat's
// file (and not a lock, a temporary file or a file set aside).
func IsChatFile(name string) bool {
	id, ok := strings.CutSuffix(filepath.Base(name), ".json")
	return ok && validID(id)
}
