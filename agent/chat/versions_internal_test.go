package chat

import (
	"slices"
	"testing"
	"time"
)

// ids is the IDs of msgs.
func ids(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

// regenerated is a chat whose answer a1 to u1 was regenerated as a2 (and
// then followed by u2, b2), as Agent.Regenerate leaves it.
func regenerated(t0 time.Time) Chat {
	c := Chat{Info: Info{ID: "c"}, Messages: []Message{
		{ID: "u1", Role: RoleUser, Time: t0},
		{ID: "a1", Role: RoleAssistant, ReplyTo: "u1", Time: t0.Add(time.Second)}}}
	c.BranchOff(1, t0.Add(2*time.Second))
	c.Messages = append(c.Messages, Message{ID: "a2", Role: RoleAssistant, ReplyTo: "u1", Time: t0.Add(3 * time.Second)},
		Message{ID: "u2", Role: RoleUser, Time: t0.Add(4 * time.Second)},
		Message{ID: "b2", Role: RoleAssistant, ReplyTo: "u2", Time: t0.Add(5 * time.Second)})
	return c
}

func TestVersionsSwitchBackAndForth(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	c := regenerated(t0)
	if got, shown := c.Versions(1); !slices.Equal(got, []string{"a1", "a2"}) || shown != 1 {
		t.Fatalf("versions at 1: %v, shown %d", got, shown)
	}
	if got, _ := c.Versions(0); len(got) != 1 {
		t.Fatalf("the question has versions %v", got)
	}
	for k, want := range [][]string{{"u1", "a1"}, {"u1", "a2", "u2", "b2"}, {"u1", "a1"}} {
		id := want[1]
		if err := c.ShowVersion(1, id, t0.Add(time.Duration(10+k)*time.Second)); err != nil {
			t.Fatal(err)
		}
		if got := ids(c.Messages); !slices.Equal(got, want) {
			t.Fatalf("switch %d to %s: messages %v, want %v", k, id, got, want)
		}
		got, shown := c.Versions(1)
		if !slices.Equal(got, []string{"a1", "a2"}) || got[shown] != id {
			t.Fatalf("switch %d to %s: versions %v, shown %d", k, id, got, shown)
		}
		if gone := removed(c); gone[id] || !gone[got[1-shown]] {
			t.Fatalf("switch %d: the chat removes %v", k, gone)
		}
	}
	if err := c.ShowVersion(1, "nope", t0); err == nil {
		t.Error("showing an unknown version did not fail")
	}
}

// A branch kept before branches knew what they follow is found by index.
func TestVersionsOfOldBranches(t *testing.T) {
	c := regenerated(time.Now())
	c.Branches[0].After = ""
	if got, _ := c.Versions(1); len(got) != 2 {
		t.Fatalf("versions %v", got)
	}
}

// A version switch survives a write of another process whose copy predates
// it, and a message that process added stays.
func TestVersionSwitchSurvivesAnotherWriter(t *testing.T) {
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
	reg := regenerated(time.Now().Add(-time.Minute))
	if err := a.Update(id, func(c *Chat) bool {
		c.Messages, c.Branches = reg.Messages, reg.Branches
		return true
	}); err != nil {
		t.Fatal(err)
	}
	b, err := Load(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.readIn(id); err != nil {
		t.Fatal(err)
	}
	if err := a.Update(id, func(c *Chat) bool { return c.ShowVersion(1, "a1", time.Now()) == nil }); err != nil {
		t.Fatal(err)
	}
	if err := b.Update(id, func(c *Chat) bool { // b still shows a2, u2, b2
		c.Messages = append(c.Messages, Message{ID: "u3", Role: RoleUser})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	c, err := readChatFile(a.path(id))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c.Messages); !slices.Equal(got, []string{"u1", "a1", "u3"}) {
		t.Errorf("messages %v, want u1 a1 u3", got)
	}
	if got, _ := c.Versions(1); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("versions %v", got)
	}
}
