package chat

import (
	"slices"
	"testing"
	"time"
)

func TestMergeMessages(t *testing.T) {
	u := func(id string) Message { return Message{ID: id, Role: RoleUser} }
	ans := func(id, to string) Message { return Message{ID: id, Role: RoleAssistant, ReplyTo: to} }
	sum := func(id string) Message { return Message{ID: id, Role: RoleSummary} }
	ids := func(ms []Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		disk, mine []Message
		want       []string
	}{
		{"nothing new", []Message{u("u1"), ans("a1", "u1")}, []Message{u("u1"), ans("a1", "u1")}, []string{"u1", "a1"}},
		{"their question, my answer", []Message{u("u1"), u("u2")}, []Message{u("u1"), ans("a1", "u1")},
			[]string{"u1", "a1", "u2"}},
		{"their turn, my question", []Message{u("u1"), ans("a1", "u1")}, []Message{u("u2")},
			[]string{"u1", "a1", "u2"}},
		{"after earlier answers", []Message{u("u1"), ans("a1", "u1"), u("u2")}, []Message{u("u1"), ans("a1b", "u1")},
			[]string{"u1", "a1", "a1b", "u2"}},
		{"summary after its predecessor", []Message{u("u1"), ans("a1", "u1"), u("u2"), u("u3")},
			[]Message{u("u1"), ans("a1", "u1"), sum("s"), u("u2")}, []string{"u1", "a1", "s", "u2", "u3"}},
		{"answer to an unknown question", []Message{u("u1")}, []Message{ans("a9", "u9")}, []string{"u1", "a9"}},
		{"empty disk", nil, []Message{u("u1"), ans("a1", "u1")}, []string{"u1", "a1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(mergeMessages(tc.disk, tc.mine)); !slices.Equal(got, tc.want) {
				t.Errorf("merge = %v, want %v", got, tc.want)
			}
		})
	}
	// Four writers, each with one turn, writing question then answer in
	// any interleaving: the turns come whole, in the order of the
	// questions.
	var disk []Message
	for i := 0; i < 4; i++ {
		disk = mergeMessages(disk, []Message{u(string(rune('a' + i)))})
	}
	for _, i := range []int{2, 0, 3, 1} {
		q := string(rune('a' + i))
		disk = mergeMessages(disk, []Message{u(q), ans(q+"'", q)})
	}
	if got := ids(disk); !slices.Equal(got, []string{"a", "a'", "b", "b'", "c", "c'", "d", "d'"}) {
		t.Errorf("four writers: %v", got)
	}
}

// TestRemovalsSurviveAnotherWriter: a message deleted or replaced by an
// edit in one process does not come back when another process, whose copy
// still has it, writes the chat; and that process's new message is kept.
func TestRemovalsSurviveAnotherWriter(t *testing.T) {
	dir := t.TempDir()
	a, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	info, err := a.Create(true, "")
	if err != nil {
		t.Fatal(err)
	}
	id := info.ID
	add := func(cs *Store, ms ...Message) {
		t.Helper()
		if err := cs.Update(id, func(c *Chat) bool { c.Messages = append(c.Messages, ms...); return true }); err != nil {
			t.Fatal(err)
		}
	}
	add(a, Message{ID: "u1", Role: RoleUser, Text: "one"}, Message{ID: "a1", Role: RoleAssistant, ReplyTo: "u1"},
		Message{ID: "u2", Role: RoleUser, Text: "two"}, Message{ID: "a2", Role: RoleAssistant, ReplyTo: "u2"})
	b, err := Load(dir, time.Now) // the other process, with all four
	if err != nil {
		t.Fatal(err)
	}
	if err := b.readIn(id); err != nil { // in memory, as a chat b has changed is
		t.Fatal(err)
	}

	// a deletes a1 and branches off u2 and a2 (an edit of u2).
	if err := a.Update(id, func(c *Chat) bool {
		c.Messages = slices.Delete(slices.Clone(c.Messages), 1, 2)
		c.Deleted = append(c.Deleted, "a1")
		c.BranchOff(1, time.Now())
		c.Messages = append(c.Messages, Message{ID: "u2b", Role: RoleUser, Text: "two, edited"})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	add(b, Message{ID: "a2b", Role: RoleAssistant, ReplyTo: "u2"}) // b still has a1, u2, a2

	// b's answer replies to u2, which the edit replaced: it is kept, after
	// the last message before it that is still there.
	want := []string{"u1", "a2b", "u2b"}
	for name, cs := range map[string]*Store{"file": nil, "b": b} {
		var c Chat
		if cs == nil {
			c, err = readChatFile(a.path(id))
		} else {
			c, err = cs.Get(id)
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range c.Messages {
			got = append(got, m.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: messages %v, want %v", name, got, want)
		}
		if len(c.Branches) != 1 || len(c.Branches[0].Messages) != 2 || !slices.Contains(c.Deleted, "a1") {
			t.Errorf("%s: branches %+v, deleted %v", name, c.Branches, c.Deleted)
		}
	}
}
