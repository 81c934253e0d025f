package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// readChatHeader reads a chat file's header: its Info, checked as
// readChatFile checks it, without keeping its messages. buf is reused for
// the file's bytes and returned for the next file.
func readChatHeader(path string, buf []byte) (Info, []byte, error) {
	buf, err := readInto(path, buf)
	if err != nil {
		return Info{}, buf, err
	}
	var h struct{ Info } // the other fields are checked as JSON, not kept
	err = json.Unmarshal(buf, &h)
	if err := checkChatFile(path, err, h.ID); err != nil {
		return Info{}, buf, err
	}
	return h.Info, buf, nil
}

// readInto reads the file at path into buf, grown as needed.
func readInto(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		buf = slices.Grow(buf[:0], int(st.Size())+bytes.MinRead)
	}
	b := bytes.NewBuffer(buf[:0])
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// readPartial reads chat id, whose messages are not in memory, from its
// file, scrubbed of what the store forgot.
func (cs *Store) readPartial(id string) (Chat, error) {
	c, err := readChatFile(cs.path(id))
	if err != nil {
		return Chat{}, fmt.Errorf("read chat %s: %w", id, err)
	}
	cs.scrub(&c)
	return c, nil
}

// readIn brings the messages of chat id into memory, from its file, if they
// are not there yet: a change works on the whole chat.
func (cs *Store) readIn(id string) error {
	cs.mu.Lock()
	partial := cs.partial[id]
	cs.mu.Unlock()
	if !partial {
		return nil
	}
	c, err := cs.readPartial(id)
	if err != nil {
		return err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if m := cs.chats[id]; m != nil && cs.partial[id] {
		*m = c
		delete(cs.partial, id)
	}
	return nil
}
