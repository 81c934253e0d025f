package agent

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
	"unicode"
)

// The roles of chat messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleSummary marks a compaction summary: it stands for every message
	// before it when the chat is sent to the model (those stay in the chat
	// for people to read).
	RoleSummary = "summary"
)

// ErrChatNotFound is returned for an unknown chat ID.
var ErrChatNotFound = errors.New("chat not found")

// ErrTurnRunning is returned by Send while the chat's previous turn runs.
var ErrTurnRunning = errors.New("a turn is already running in this chat")

// ChatInfo describes a chat without its messages.
type ChatInfo struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	AutoRecall bool      `json:"auto_recall"`
	Project    string    `json:"project,omitempty"` // pinned project folder
	// Capture overrides the capture setting for this chat ("" follows it).
	Capture CaptureMode `json:"capture,omitempty"`
}

// Chat is a chat with its messages, oldest first.
type Chat struct {
	ChatInfo
	Messages []Message `json:"messages"`
	// Branches are the parts of the chat that an edit or a regeneration
	// replaced, oldest first (see Agent.Resend).
	Branches []Branch `json:"branches,omitempty"`
	// Deleted are the IDs of messages that DeleteMessage removed, so that
	// merging with another writer's copy does not bring them back.
	Deleted []string `json:"deleted,omitempty"`
}

// Message is one message of a chat.
type Message struct {
	// ID names the message in its chat; writers of one chat merge by it.
	ID string `json:"id,omitempty"`
	// ReplyTo is the ID of the user message an answer replies to.
	ReplyTo  string        `json:"reply_to,omitempty"`
	Role     string        `json:"role"` // RoleUser, RoleAssistant or RoleSummary
	Text     string        `json:"text"`
	Time     time.Time     `json:"time"`
	Recalled []RecalledHit `json:"recalled,omitempty"` // the memories recalled for this answer
	Pinned   []RecalledHit `json:"pinned,omitempty"`   // the pinned memories in its prompt
	Tools    []ToolRecord  `json:"tools,omitempty"`    // the tools this answer called
	Err      string        `json:"err,omitempty"`      // the turn failed: why
	Stopped  bool          `json:"stopped,omitempty"`  // the turn was cancelled; Text is partial
	Usage    *Usage        `json:"usage,omitempty"`
	// Reasoning is the model's thinking before (and between) the parts of
	// the answer, shown apart; it is never sent back to the model, nor to
	// distillation or compaction. ThinkingTime is how long it took.
	Reasoning    string        `json:"reasoning,omitempty"`
	ThinkingTime time.Duration `json:"thinking_time,omitempty"` // nanoseconds in the file
	// Interrupted marks an answer that broke off (the stream ended before
	// the model finished, or went silent): Text is partial, it is not sent
	// back to the model nor distilled, and Retry asks again.
	Interrupted bool `json:"interrupted,omitempty"`
	// Cut marks an answer cut at Config.MaxAnswerBytes or at the model's
	// output limit; Continue may go on with it.
	Cut bool `json:"cut,omitempty"`
}

// ToolRecord is one tool call of an answer and its result.
type ToolRecord struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Args   string `json:"args"`
	Result string `json:"result"`
	Failed bool   `json:"failed,omitempty"`
}

// chatStore keeps the chats in memory and one file per chat on disk. A
// change applies in memory at once; its file write may follow (persist), and
// writes of one chat never go back to an older version.
type chatStore struct {
	dir string
	now func() time.Time

	mu    sync.Mutex
	chats map[string]*Chat
	ver   map[string]uint64 // in-memory version of each chat
	errs  []error           // files that could not be read at load

	wmu     sync.Mutex        // serialises file writes and removals
	written map[string]uint64 // version of each chat on disk
}

// loadChats reads every chat file of dir (a missing dir is no chats). Files
// that do not parse are skipped and remembered in errs.
func loadChats(dir string, now func() time.Time) (*chatStore, error) {
	cs := &chatStore{dir: dir, now: now, chats: map[string]*Chat{}, ver: map[string]uint64{},
		written: map[string]uint64{}}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return cs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load chats %s: %w", dir, err)
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || !validChatID(strings.TrimSuffix(name, ".json")) {
			continue
		}
		path := filepath.Join(dir, name)
		c, err := readChatFile(path)
		if err != nil {
			cs.errs = append(cs.errs, fmt.Errorf("load chat: %w", err))
			continue
		}
		cs.chats[c.ID] = &c
	}
	removeStaleTemps(dir, now())
	return cs, nil
}

// validChatID reports whether id can name a chat file.
func validChatID(id string) bool {
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

// newChatID returns a fresh ID: the creation time (so files sort) and
// random bits.
func newChatID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (cs *chatStore) path(id string) string { return filepath.Join(cs.dir, id+".json") }

// create makes and saves a new chat.
func (cs *chatStore) create(autoRecall bool, project string) (ChatInfo, error) {
	now := cs.now()
	c := &Chat{ChatInfo: ChatInfo{ID: newChatID(now), Created: now, Updated: now, AutoRecall: autoRecall,
		Project: project}}
	cs.mu.Lock()
	for cs.chats[c.ID] != nil {
		c.ID = newChatID(now)
	}
	cs.chats[c.ID] = c
	cs.ver[c.ID]++
	snap, ver := *c, cs.ver[c.ID]
	cs.mu.Unlock()
	if err := cs.persist(snap, ver); err != nil {
		cs.mu.Lock()
		delete(cs.chats, c.ID)
		cs.mu.Unlock()
		return ChatInfo{}, err
	}
	return c.ChatInfo, nil
}

// list returns the chats, most recently updated first.
func (cs *chatStore) list() []ChatInfo {
	cs.mu.Lock()
	out := make([]ChatInfo, 0, len(cs.chats))
	for _, c := range cs.chats {
		out = append(out, c.ChatInfo)
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

// get returns a deep enough copy of a chat that the caller may keep it.
func (cs *chatStore) get(id string) (Chat, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.chats[id]
	if !ok {
		return Chat{}, fmt.Errorf("chat %q: %w", id, ErrChatNotFound)
	}
	out := *c
	out.Messages = append([]Message(nil), c.Messages...)
	out.Branches = append([]Branch(nil), c.Branches...)
	out.Deleted = append([]string(nil), c.Deleted...)
	return out, nil
}

// info returns a chat's info, without copying its messages.
func (cs *chatStore) info(id string) (ChatInfo, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.chats[id]
	if !ok {
		return ChatInfo{}, fmt.Errorf("chat %q: %w", id, ErrChatNotFound)
	}
	return c.ChatInfo, nil
}

// update changes a chat with fn and saves it. fn returns whether anything
// changed.
func (cs *chatStore) update(id string, fn func(c *Chat) bool) error {
	snap, ver, err := cs.apply(id, fn)
	if err != nil || ver == 0 {
		return err
	}
	return cs.persist(snap, ver)
}

// apply changes a chat in memory with fn and returns the new version to
// persist (0 when fn changed nothing).
func (cs *chatStore) apply(id string, fn func(c *Chat) bool) (Chat, uint64, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.chats[id]
	if !ok {
		return Chat{}, 0, fmt.Errorf("chat %q: %w", id, ErrChatNotFound)
	}
	next := *c
	next.Messages = append([]Message(nil), c.Messages...)
	if !fn(&next) {
		return Chat{}, 0, nil
	}
	for i := range next.Messages {
		if next.Messages[i].ID == "" {
			next.Messages[i].ID = newMessageID()
		}
	}
	next.Updated = cs.now()
	*c = next
	cs.ver[id]++
	snap := next
	snap.Messages = append([]Message(nil), next.Messages...)
	return snap, cs.ver[id], nil
}

// persist writes version ver of a chat, unless a newer version is on disk
// already or the chat was deleted meanwhile. The write merges in what
// other processes wrote to the file (see writeMerged), and so does the
// chat in memory.
func (cs *chatStore) persist(c Chat, ver uint64) error {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.mu.Lock()
	_, exists := cs.chats[c.ID]
	cs.mu.Unlock()
	if !exists || cs.written[c.ID] >= ver {
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
	}
	cs.mu.Unlock()
	return nil
}

// remove deletes a chat and its file.
func (cs *chatStore) remove(id string) error {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.mu.Lock()
	_, ok := cs.chats[id]
	delete(cs.chats, id)
	cs.mu.Unlock()
	if !ok {
		return fmt.Errorf("chat %q: %w", id, ErrChatNotFound)
	}
	if err := os.Remove(cs.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete chat %s: %w", id, err)
	}
	_ = os.Remove(cs.path(id) + ".lock") // only a lock: nothing is lost
	return nil
}

// titleFrom makes a chat title from its first message: the first line,
// spaces collapsed, at most 60 characters.
func titleFrom(text string) string {
	line := strings.TrimSpace(text)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
	const maxTitle = 60
	if r := []rune(line); len(r) > maxTitle {
		cut := string(r[:maxTitle])
		if i := strings.LastIndexByte(cut, ' '); i > maxTitle/2 {
			cut = cut[:i]
		}
		return strings.TrimRight(cut, " ,.;:") + "…"
	}
	if line == "" {
		return "New chat"
	}
	return line
}
