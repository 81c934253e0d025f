package agent

import (
	"slices"
	"testing"
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
