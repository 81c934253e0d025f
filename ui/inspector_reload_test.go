package ui

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"engram/memory"
)

// TestInspectorEditReloadsOnce makes each kind of edit in the inspector
// and counts the list's reloads: one per edit, the one that follows the
// store's change event (the edit's own result reloads nothing more).
func TestInspectorEditReloadsOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(t *testing.T, h *harness)
		want []string // the rows after the edit
	}{
		{"save in the editor", func(t *testing.T, h *harness) {
			editRow(t, h.u.insp, 0)
			h.u.insp.ed.text.SetText("The NAS runs rsyncd on port 874")
			test.Tap(h.u.insp.ed.saveB)
		}, []string{"The NAS runs rsyncd on port 874"}},
		{"add a new memory", func(t *testing.T, h *harness) {
			h.u.insp.ed.open(nil)
			h.u.insp.ed.text.SetText("Backups run at 02:00")
			test.Tap(h.u.insp.ed.saveB)
		}, []string{"Backups run at 02:00", "The NAS runs rsyncd on port 873"}},
		{"delete in the editor", func(t *testing.T, h *harness) {
			editRow(t, h.u.insp, 0)
			test.Tap(h.u.insp.ed.del)
		}, nil},
		{"pin in the detail view", func(t *testing.T, h *harness) {
			h.u.insp.list.Select(0)
			h.settle()
			test.Tap(button(t, h.u.insp.detail.root, "Pin"))
		}, []string{"The NAS runs rsyncd on port 873"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, func(fb *fakeBackend) {
				addMemories(t, fb, memory.Entry{Kind: memory.KindFact, Text: "The NAS runs rsyncd on port 873"})
			})
			i := h.u.insp
			h.settle()
			c.edit(t, h)
			before := i.gen
			h.settle()
			if n := i.gen - before; n != 1 {
				t.Errorf("the edit reloaded the list %d times, want 1", n)
			}
			got := rowTexts(i)
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("rows after the edit: %q, want %q", got, c.want)
			}
		})
	}
}

// TestInspectorRanksAsMemorySearch searches as a person types: the rows in
// the inspector's default order are memory's Search hits, in its order,
// with their scores (engramctl memory search shows the same).
func TestInspectorRanksAsMemorySearch(t *testing.T) {
	t.Parallel() // no app: an in-memory store and the pure query
	st := memory.NewInMemory(memory.Options{})
	for _, text := range []string{"Back up the laptop with rsync to the NAS", "The NAS runs rsyncd on port 873",
		"Deploy with the dry-run flag first", "部署脚本在 scripts/deploy.sh", "rsync needs --delete for mirrors"} {
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: text, Source: memory.SourceUser}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"rsyn", "rsync ", "  nas port", "部署", "dry-run fl", "   "} {
		var got, want []string
		for _, r := range queryRows(st, q, filter{}) {
			got = append(got, r.e.ID+" "+strconv.FormatFloat(r.score, 'g', -1, 64))
		}
		for _, h := range st.Search(q, searchLimit) {
			want = append(want, h.Entry.ID+" "+strconv.FormatFloat(h.Score, 'g', -1, 64))
		}
		if strings.TrimSpace(q) == "" {
			want = nil
			for _, e := range st.List() {
				want = append(want, e.ID+" 0")
			}
			slices.Sort(got)
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: the inspector shows %q, memory's Search %q", q, got, want)
		}
		if strings.TrimSpace(q) != "" && len(got) == 0 {
			t.Errorf("%q finds nothing", q)
		}
	}
}
