package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/memory"
)

// A recalled or pinned memory of an answer's disclosure is a link: tapping
// it asks the pane's OnOpenMemory to show that memory (its ID and store).
func TestDisclosureMemoryOpensInInspector(t *testing.T) {
	pinned := memory.Entry{ID: "p1", Kind: memory.KindPreference, Text: "Answer in Chinese", Pinned: true}
	hit := memory.Entry{ID: "h1", Kind: memory.KindFact, Text: "Deploys go through the blue-green pipeline"}
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{agent.TurnStarted{ChatID: id, Text: text},
				agent.RecallDone{ChatID: id, Pinned: []agent.RecalledHit{{Hit: memory.Hit{Entry: pinned}, Scope: agent.ScopeGlobal}},
					Hits: []agent.RecalledHit{{Hit: memory.Hit{Entry: hit, Score: 1.5}, Scope: agent.ScopeProject}}},
				agent.Delta{ChatID: id, Text: "Done."}, agent.TurnDone{ChatID: id}}
		}
	})
	var opened []string
	h.u.pane.OnOpenMemory = func(h agent.RecalledHit) { opened = append(opened, string(h.Scope)+" "+h.Entry.ID) }
	h.send("push it to prod")
	view := h.u.pane.views[1]
	test.Tap(button(t, view.root, "1 memory recalled · 1 pinned"))
	links := objects[*memLink](view.root)
	if len(links) != 2 {
		t.Fatalf("the disclosure has %d memory links, want 2", len(links))
	}
	for _, l := range links {
		test.Tap(l)
	}
	if got := strings.Join(opened, ", "); got != "global p1, project h1" {
		t.Errorf("tapping the memories opened %q", got)
	}
}

// Without OnOpenMemory the rows are plain text.
func TestDisclosureMemoryWithoutInspector(t *testing.T) {
	test.NewTempApp(t)
	m := &msgState{Message: Message{Role: "assistant", Text: "Done.",
		Recalled: []agent.RecalledHit{{Hit: memory.Hit{Entry: memory.Entry{ID: "h1", Text: "x"}}}}}, open: true}
	v := newMessageView(m, messageActions{})
	if n := len(objects[*memLink](v.root)); n != 0 {
		t.Errorf("%d memory links without an inspector to open them in", n)
	}
}
