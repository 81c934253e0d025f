package chat

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"engram/memory/durable"
)

// Chat files are shared: the app and any number of `engramctl chat` may
// write one chat at once. Every write takes the chat's lock (<id>.json.lock,
// memory/durable's flock, as the memory store does), reads the file again,
// merges it with what this process has by message ID, and replaces it
// atomically, so no writer loses another's messages. Temporary files of
// writers that died are removed under the lock, and at load once they are
// older than staleTempAge.

// staleTempAge is the age after which a chat's temporary file found at
// load belongs to a writer that died (a write takes milliseconds).
const staleTempAge = 10 * time.Minute

// NewMessageID returns a fresh message ID.
func NewMessageID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "m-" + hex.EncodeToString(b[:])
}

// ensureIDs gives the messages that have no ID (files written before
// messages had IDs) one derived from their place and content, so that every
// process reading the same file gives them the same IDs.
func ensureIDs(msgs []Message) {
	for i := range msgs {
		if msgs[i].ID != "" {
			continue
		}
		m := msgs[i]
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s\x00%s\x00%s", i, m.Role, m.Time.UTC().Format(time.RFC3339Nano),
			m.Text)))
		msgs[i].ID = fmt.Sprintf("legacy-%d-%s", i, hex.EncodeToString(sum[:6]))
	}
}

// writeMerged writes c to its file merged with the file's content (and
// scrubbed with what this store forgot), under the chat's lock, and returns
// what it wrote.
func (cs *Store) writeMerged(c Chat) (Chat, error) {
	return cs.rewrite(c.ID, func(disk *Chat) (Chat, bool) {
		if disk != nil {
			c = mergeChat(*disk, c)
		}
		cs.scrub(&c)
		return c, true
	})
}

// rewrite replaces the chat file of id, under the chat's lock, by what fn
// makes of its content (nil: there is no file) and returns that; fn may
// decline (false), and nothing is written. A file there that does not
// parse is moved aside first, never overwritten. The caller holds wmu.
func (cs *Store) rewrite(id string, fn func(disk *Chat) (Chat, bool)) (Chat, error) {
	path := cs.path(id)
	if err := os.MkdirAll(cs.dir, 0o700); err != nil {
		return Chat{}, err
	}
	lf, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return Chat{}, err
	}
	defer lf.Close()
	if err := durable.Lock(lf); err != nil {
		return Chat{}, fmt.Errorf("lock: %w", err)
	}
	defer durable.Unlock(lf)
	durable.RemoveStaleTemps(path)
	disk, err := readChatFile(path)
	var from *Chat
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errBadChatFile):
		aside := fmt.Sprintf("%s.unreadable-%s", path, cs.now().UTC().Format("20060102-150405.000000000"))
		if rerr := os.Rename(path, aside); rerr != nil {
			return Chat{}, fmt.Errorf("%w (and it could not be moved aside: %v)", err, rerr)
		}
	case err != nil:
		return Chat{}, err
	default:
		from = &disk
	}
	c, ok := fn(from)
	if !ok {
		return c, nil
	}
	b, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return c, err
	}
	if err := durable.WriteFileAtomic(path, append(b, '\n')); err != nil {
		return c, err
	}
	cs.stampLocked(id)
	return c, nil
}

// errBadChatFile is wrapped by the error of a chat file that does not parse.
var errBadChatFile = errors.New("not a chat file")

// readChatFile reads and parses a chat file.
func readChatFile(path string) (Chat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Chat{}, err
	}
	var c Chat
	err = json.Unmarshal(b, &c)
	if err := checkChatFile(path, err, c.ID); err != nil {
		return Chat{}, err
	}
	ensureIDs(c.Messages)
	return c, nil
}

// checkChatFile is the check of a chat file read from path: that it parsed
// (parseErr nil) and names itself as its file does (id).
func checkChatFile(path string, parseErr error, id string) error {
	if parseErr != nil {
		return fmt.Errorf("%w: %s does not parse: %w", errBadChatFile, path, parseErr)
	}
	if want := strings.TrimSuffix(filepath.Base(path), ".json"); id != want {
		return fmt.Errorf("%w: %s has the id %q, not its file name", errBadChatFile, path, id)
	}
	return nil
}

// mergeChat is mine, the chat as this process has it, with the messages of
// disk that it lacks, less those that either side removed (deleted, or
// kept in a branch by an edit or a regeneration, unless either side
// restored that branch); the branches and deletions of both are kept, and what either side scrubbed of forgotten
// memories stays scrubbed (see scrub.go). Of the chat's settings, mine win, but a
// title is not given up and the last update counts.
func mergeChat(disk, mine Chat) Chat {
	out := mine
	out.Branches = slices.Clone(mine.Branches)
	for _, b := range disk.Branches {
		if k := slices.IndexFunc(out.Branches, func(o Branch) bool { return sameBranch(o, b) }); k >= 0 {
			out.Branches[k].Messages = pickScrubbedAll(b.Messages, out.Branches[k].Messages)
			out.Branches[k].Restored = out.Branches[k].Restored || b.Restored
		} else {
			out.Branches = append(out.Branches, b)
		}
	}
	slices.SortStableFunc(out.Branches, func(x, y Branch) int { return x.Time.Compare(y.Time) })
	out.Deleted = slices.Clone(mine.Deleted)
	for _, id := range disk.Deleted {
		if !slices.Contains(out.Deleted, id) {
			out.Deleted = append(out.Deleted, id)
		}
	}
	gone := removed(out)
	keep := func(m Message) bool { return !gone[m.ID] }
	out.Messages = mergeMessages(filter(disk.Messages, keep), filter(mine.Messages, keep))
	out.Scrubbed = mergeScrubbed(disk.Scrubbed, mine.Scrubbed)
	scrubChat(&out, nil)
	if out.Title == "" {
		out.Title = disk.Title
	}
	if disk.Updated.After(out.Updated) {
		out.Updated = disk.Updated
	}
	return out
}

// mergeMessages returns the messages of disk with those of mine added, by
// ID: a message both have is mine (with the tool records disk scrubbed
// further, see pickScrubbed); a new answer goes after the question it
// replies to (and earlier answers to it), a new user message at the end,
// and any other new message (a summary) after the message before it in
// mine. So turns that writers made at once end up whole and in the order
// their questions were written.
func mergeMessages(disk, mine []Message) []Message {
	out := slices.Clone(disk)
	at := map[string]int{}
	index := func() {
		clear(at)
		for i, m := range out {
			at[m.ID] = i
		}
	}
	index()
	for i, m := range mine {
		if j, ok := at[m.ID]; ok {
			out[j] = pickScrubbed(out[j], m)
			continue
		}
		pos := len(out)
		if q, ok := at[m.ReplyTo]; ok && m.ReplyTo != "" {
			pos = q + 1
			for pos < len(out) && out[pos].ReplyTo == m.ReplyTo {
				pos++
			}
		} else if prev, ok := at[prevID(mine, i)]; ok && m.Role != RoleUser {
			pos = prev + 1
		}
		out = slices.Insert(out, pos, m)
		index()
	}
	return out
}

// removed returns the IDs of the messages that c removed: those deleted
// and those kept in its branches that were not restored.
func removed(c Chat) map[string]bool {
	out := map[string]bool{}
	for _, id := range c.Deleted {
		out[id] = true
	}
	for _, b := range c.Branches {
		if b.Restored {
			continue
		}
		for _, m := range b.Messages {
			out[m.ID] = true
		}
	}
	return out
}

// sameBranch reports whether x and y are one branch (as two writers have it).
func sameBranch(x, y Branch) bool {
	return x.At == y.At && x.Time.Equal(y.Time) && len(x.Messages) == len(y.Messages) &&
		(len(x.Messages) == 0 || x.Messages[0].ID == y.Messages[0].ID)
}

// filter returns the messages of msgs that keep accepts.
func filter(msgs []Message, keep func(Message) bool) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if keep(m) {
			out = append(out, m)
		}
	}
	return out
}

// prevID is the ID of the message before mine[i] ("" for the first).
func prevID(mine []Message, i int) string {
	if i == 0 {
		return ""
	}
	return mine[i-1].ID
}

// removeStaleTemps deletes the temporary chat files in dir older than
// staleTempAge: their writers died mid-write.
func removeStaleTemps(dir string, now time.Time) {
	tmps, _ := filepath.Glob(filepath.Join(dir, ".*.json.tmp-*"))
	for _, t := range tmps {
		if fi, err := os.Stat(t); err == nil && now.Sub(fi.ModTime()) > staleTempAge {
			_ = os.Remove(t)
		}
	}
}
