package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// TestRecalledMemoryOpensInInspector: tapping a memory an answer recalled
// opens the inspector (closed before) on its store with the memory's
// detail, as the store holds it now.
func TestRecalledMemoryOpensInInspector(t *testing.T) {
	var kept memory.Entry
	ah := newAgentHarness(t, func(ah *agentHarness) {
		st, err := ah.ag.Memory(agent.ScopeGlobal, "")
		if err != nil {
			t.Fatal(err)
		}
		if kept, _, err = st.Add(memory.Entry{Kind: memory.KindCorrection, Text: "Deploy with the dry-run flag first",
			Source: memory.SourceUser}); err != nil {
			t.Fatal(err)
		}
		ah.srv.Push(agenttest.Reply{Text: "Use the dry-run flag first."})
	})
	if ah.u.inspectorOpen {
		ah.u.toggleInspector()
	}
	a := ah.ask("How should I deploy with the flag?")
	if len(a.Recalled) != 1 {
		t.Fatalf("%d memories recalled, want 1", len(a.Recalled))
	}
	view := ah.u.pane.views[len(ah.u.pane.views)-1]
	test.Tap(button(t, view.root, "1 memory recalled"))
	links := objects[*memLink](view.root)
	if len(links) != 1 {
		t.Fatalf("the disclosure has %d memory links, want 1", len(links))
	}
	test.Tap(links[0])
	ah.waitFor("the memory's detail", func() bool { return ah.u.insp.detail.shown })
	if !ah.u.inspectorOpen || ah.u.insp.detail.e.ID != kept.ID || ah.u.insp.detail.e.Text != kept.Text {
		t.Errorf("inspector open %v, detail %q %q, want %q", ah.u.inspectorOpen, ah.u.insp.detail.e.ID,
			ah.u.insp.detail.e.Text, kept.Text)
	}
}
