package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"engram/memory"
)

// Forgetting a memory takes its text out of the chats too (Store.Scrub):
// in the tool records of every message and branch (the memory_search
// results the model saw, updates, the arguments it wrote), each form the
// text takes there is replaced by Placeholder(id), and the chat lists the
// memory's ID in Chat.Scrubbed. The text itself is never written down.
// Three rules keep it from coming back when writers merge:
//   - a tool record changes only by scrubbing, so of two versions of one
//     record, one holding a placeholder the other lacks is the later
//     (pickScrubbed);
//   - a memory_search result line (a JSON object with an id) of a memory
//     that the chat lists as scrubbed loses its text, whichever writer
//     brings it (scrubByID);
//   - a store keeps the texts it scrubbed in memory for as long as it is
//     open and scrubs every chat it changes or writes with them.

// Placeholder is what replaces the text of forgotten memory id in a chat.
func Placeholder(id string) string { return placeholderOpen + id + "]" }

const placeholderOpen = "[forgotten memory "

// minScrub is the shortest form of a text that is scrubbed: a shorter
// one would match too much besides the memory.
const minScrub = 4

// scrubForm is one way a forgotten memory's text is written in a tool
// record, with the memory's ID.
type scrubForm struct {
	id, text string
}

// formsOf returns the forms in which the texts of entries appear in tool
// records, longest first: as stored, trimmed, defused as memory_search
// shows them, and each of those escaped inside a JSON string.
func formsOf(entries []memory.Entry) []scrubForm {
	var out []scrubForm
	seen := map[string]bool{}
	for _, e := range entries {
		if e.ID == "" || e.Text == "" {
			continue
		}
		trimmed := strings.TrimSpace(e.Text)
		for _, s := range []string{e.Text, trimmed, memory.Defuse(e.Text), memory.Defuse(trimmed)} {
			for _, f := range []string{s, jsonInner(s, false), jsonInner(s, true)} {
				if len(f) >= minScrub && !seen[f] {
					seen[f] = true
					out = append(out, scrubForm{id: e.ID, text: f})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b scrubForm) int { return len(b.text) - len(a.text) })
	return out
}

// jsonInner is s as it stands inside a JSON string, HTML characters
// escaped or not.
func jsonInner(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		return s
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// scrubChat replaces every form in the tool records of c (messages and
// branches) and then applies its Scrubbed list (scrubByID), adding the IDs
// whose forms it found to that list; it reports whether anything changed.
// The records are copied before they change: c may share them with the
// chat it was copied from.
func scrubChat(c *Chat, forms []scrubForm) bool {
	if len(forms) == 0 && len(c.Scrubbed) == 0 {
		return false
	}
	scrubbed := map[string]bool{}
	for _, id := range c.Scrubbed {
		scrubbed[id] = true
	}
	record := func(r ToolRecord) ToolRecord {
		for _, f := range forms {
			if strings.Contains(r.Result, f.text) || strings.Contains(r.Args, f.text) {
				r.Result = strings.ReplaceAll(r.Result, f.text, Placeholder(f.id))
				r.Args = strings.ReplaceAll(r.Args, f.text, Placeholder(f.id))
				if !scrubbed[f.id] {
					scrubbed[f.id] = true
					c.Scrubbed = append(slices.Clip(c.Scrubbed), f.id)
				}
			}
		}
		r.Result = scrubByID(r.Result, scrubbed)
		return r
	}
	messages := func(msgs []Message) ([]Message, bool) {
		var out []Message // nil until a record changes
		for i, m := range msgs {
			for j, r := range m.Tools {
				if s := record(r); s != r {
					if out == nil {
						out = cloneTools(msgs)
					}
					out[i].Tools[j] = s
				}
			}
		}
		return out, out != nil
	}
	changed := false
	if msgs, ok := messages(c.Messages); ok {
		c.Messages, changed = msgs, true
	}
	branchesCopied := false
	for k := range c.Branches {
		if msgs, ok := messages(c.Branches[k].Messages); ok {
			if !branchesCopied {
				c.Branches, branchesCopied = slices.Clone(c.Branches), true
			}
			c.Branches[k].Messages, changed = msgs, true
		}
	}
	return changed
}

// cloneTools copies msgs and their tool records, so that scrubbing a copy
// of a chat leaves the chat it was copied from as it is.
func cloneTools(msgs []Message) []Message {
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Tools = slices.Clone(out[i].Tools)
	}
	return out
}

// searchLine is the part of a memory_search result line that scrubByID
// reads.
type searchLine struct {
	ID   *string `json:"id"`
	Text *string `json:"text"`
}

// scrubByID replaces, in a tool result, the text of every JSON line that
// names a scrubbed memory by its id.
func scrubByID(result string, scrubbed map[string]bool) string {
	if len(scrubbed) == 0 || !strings.Contains(result, `"id"`) {
		return result
	}
	lines := strings.Split(result, "\n")
	changed := false
	for i, line := range lines {
		var l searchLine
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &l) != nil || l.ID == nil || l.Text == nil ||
			!scrubbed[*l.ID] || *l.Text == Placeholder(*l.ID) {
			continue
		}
		for _, f := range []string{jsonInner(*l.Text, false), jsonInner(*l.Text, true)} {
			if f != "" {
				line = strings.ReplaceAll(line, `"`+f+`"`, `"`+Placeholder(*l.ID)+`"`)
			}
		}
		lines[i], changed = line, true
	}
	if !changed {
		return result
	}
	return strings.Join(lines, "\n")
}

// placeholders returns the IDs of the placeholders in a tool record.
func placeholders(r ToolRecord) map[string]bool {
	out := map[string]bool{}
	for _, s := range []string{r.Args, r.Result} {
		for {
			i := strings.Index(s, placeholderOpen)
			if i < 0 {
				break
			}
			s = s[i+len(placeholderOpen):]
			j := strings.IndexByte(s, ']')
			if j < 0 {
				break
			}
			out[s[:j]] = true
			s = s[j+1:]
		}
	}
	return out
}

// pickScrubbed is mine, the version of a message this writer has, with
// each tool record that disk's version scrubbed further taken from disk: a
// record holding a placeholder that mine's lacks.
func pickScrubbed(disk, mine Message) Message {
	copied := false
	for i, r := range mine.Tools {
		if i >= len(disk.Tools) || disk.Tools[i].CallID != r.CallID || disk.Tools[i] == r {
			continue
		}
		have := placeholders(r)
		for id := range placeholders(disk.Tools[i]) {
			if !have[id] {
				if !copied {
					mine.Tools, copied = slices.Clone(mine.Tools), true
				}
				mine.Tools[i] = disk.Tools[i]
				break
			}
		}
	}
	return mine
}

// pickScrubbedAll applies pickScrubbed to the messages of mine that disk
// has too (two versions of one branch).
func pickScrubbedAll(disk, mine []Message) []Message {
	at := map[string]int{}
	for i, m := range disk {
		at[m.ID] = i
	}
	out, copied := mine, false
	for i, m := range mine {
		if j, ok := at[m.ID]; ok {
			if p := pickScrubbed(disk[j], m); !slices.Equal(p.Tools, m.Tools) {
				if !copied {
					out, copied = slices.Clone(mine), true
				}
				out[i] = p
			}
		}
	}
	return out
}

// mergeScrubbed is the IDs of mine with those of disk it lacks.
func mergeScrubbed(disk, mine []string) []string {
	out := slices.Clone(mine)
	for _, id := range disk {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Scrub takes the texts of forgotten memories (each version, with its ID
// and text) out of every chat: those the store holds and every chat file
// in its folder, each under the chat's lock (a chat holding none of them
// is not written). From then on every chat the store changes or writes is
// scrubbed of them too, so that an older copy another writer brings cannot
// put them back. The texts are kept in memory only.
func (cs *Store) Scrub(forgotten ...memory.Entry) error {
	forms := formsOf(forgotten)
	if len(forms) == 0 {
		return nil
	}
	cs.mu.Lock()
	cs.forms = append(slices.Clip(cs.forms), forms...)
	slices.SortStableFunc(cs.forms, func(a, b scrubForm) int { return len(b.text) - len(a.text) })
	ids := slices.Collect(maps.Keys(cs.chats))
	cs.mu.Unlock()
	ents, err := os.ReadDir(cs.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("scrub chats %s: %w", cs.dir, err)
	}
	for _, e := range ents {
		id := strings.TrimSuffix(e.Name(), ".json")
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && validID(id) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		if err := cs.scrubOne(id); err != nil {
			errs = append(errs, fmt.Errorf("scrub chat %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// scrubOne scrubs one chat, in memory and in its file (merged as a write
// merges), with the store's forms.
func (cs *Store) scrubOne(id string) error {
	cs.wmu.Lock()
	defer cs.wmu.Unlock()
	cs.mu.Lock()
	var mine *Chat
	var ver uint64
	if m := cs.chats[id]; m != nil && !cs.partial[id] { // a partial chat is its file
		c := *m
		mine, ver = &c, cs.ver[id]
	}
	cs.mu.Unlock()
	wrote := false
	out, err := cs.rewrite(id, func(disk *Chat) (Chat, bool) {
		if disk == nil { // nothing on disk yet: a write of the chat scrubs it
			return Chat{}, false
		}
		c := *disk
		if mine != nil {
			c = mergeChat(*disk, *mine)
		}
		cs.scrub(&c)
		wrote = !sameFile(c, *disk)
		return c, wrote
	})
	if err != nil {
		return err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if m := cs.chats[id]; m != nil && !cs.partial[id] {
		if wrote {
			*m = mergeChat(out, *m)
		}
		scrubChat(m, cs.forms)
		cs.gen[id]++
	}
	if wrote && mine != nil && cs.written[id] < ver {
		cs.written[id] = ver
	}
	return nil
}

// scrub scrubs c with the store's forms.
func (cs *Store) scrub(c *Chat) bool {
	cs.mu.Lock()
	forms := cs.forms
	cs.mu.Unlock()
	return scrubChat(c, forms)
}

// sameFile reports whether two chats are written as the same file.
func sameFile(x, y Chat) bool {
	bx, errx := json.Marshal(x)
	by, erry := json.Marshal(y)
	return errx == nil && erry == nil && bytes.Equal(bx, by)
}
