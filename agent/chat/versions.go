package chat

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrNoVersion is returned by ShowVersion for a version the place does
// not have.
var ErrNoVersion = errors.New("no such version")

// A version is what follows one place of a chat: the messages shown from
// there on, or those of a branch an edit or a regeneration kept there.
// Versions are named by the ID of their first message and ordered by its
// time (then ID), so that their order does not depend on which one shows.

// Versions returns the versions of the messages from index i of c on, oldest
// first, and the index of the one shown; a place that was never edited or
// regenerated has one.
func (c *Chat) Versions(i int) (ids []string, shown int) {
	prev := ""
	if i > 0 {
		prev = c.Messages[i-1].ID
	}
	return VersionsAt(c.Branches, i, prev, c.Messages[i])
}

// VersionsAt is Versions for a chat whose messages are held elsewhere: the
// place is index i, after the message prev ("" at the start), and first is
// the message shown there.
func VersionsAt(branches []Branch, i int, prev string, first Message) (ids []string, shown int) {
	type version struct {
		id string
		t  time.Time
	}
	vs := []version{{first.ID, first.Time}}
	for _, b := range branches {
		if b.Restored || len(b.Messages) == 0 || !b.at(i, prev) ||
			slices.ContainsFunc(vs, func(v version) bool { return v.id == b.Messages[0].ID }) {
			continue
		}
		vs = append(vs, version{b.Messages[0].ID, b.Messages[0].Time})
	}
	slices.SortFunc(vs, func(x, y version) int { return cmp.Or(x.t.Compare(y.t), cmp.Compare(x.id, y.id)) })
	ids = make([]string, len(vs))
	for k, v := range vs {
		ids[k] = v.id
		if v.id == first.ID {
			shown = k
		}
	}
	return ids, shown
}

// at reports whether b was kept at index i, after the message prev.
func (b Branch) at(i int, prev string) bool {
	if b.After != "" {
		return b.After == prev
	}
	return b.At == i
}

// ShowVersion shows the version id of the messages from index i of c on:
// those shown now are kept as a branch (as an edit keeps them) and the
// branch of version id takes their place, marked restored. The chat then
// goes on from it. Showing the version shown changes nothing.
func (c *Chat) ShowVersion(i int, id string, now time.Time) error {
	if i < 0 || i >= len(c.Messages) {
		return fmt.Errorf("show version %s at %d of chat %s: %w", id, i, c.ID, ErrNoVersion)
	}
	if c.Messages[i].ID == id {
		return nil
	}
	prev := ""
	if i > 0 {
		prev = c.Messages[i-1].ID
	}
	k := slices.IndexFunc(c.Branches, func(b Branch) bool {
		return !b.Restored && len(b.Messages) > 0 && b.Messages[0].ID == id && b.at(i, prev)
	})
	if k < 0 {
		return fmt.Errorf("show version %s at %d of chat %s: %w", id, i, c.ID, ErrNoVersion)
	}
	back := slices.Clone(c.Branches[k].Messages)
	c.BranchOff(i, now)
	c.Branches[k].Restored = true
	c.Messages = append(c.Messages, back...)
	return nil
}
