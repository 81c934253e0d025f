package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/memory"
)

// TestDisclosureShowsSimilarMeaning: a hit the dense signal brought shows
// "similar meaning" and its cosine, beside the words it matched or alone
// when it matched none.
func TestDisclosureShowsSimilarMeaning(t *testing.T) {
	cafe := memory.Entry{ID: "m1", Kind: memory.KindPreference, Text: "Takes an espresso every morning"}
	tea := memory.Entry{ID: "m2", Kind: memory.KindFact, Text: "Drinks green tea after lunch"}
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{agent.TurnStarted{ChatID: id, Text: text},
				agent.RecallDone{ChatID: id, Hits: []agent.RecalledHit{
					{Hit: memory.Hit{Entry: cafe, Score: 0.8, Meaning: 0.62}, Scope: agent.ScopeGlobal},
					{Hit: memory.Hit{Entry: tea, Score: 1.2, Terms: []string{"drink"}, Meaning: 0.557}, Scope: agent.ScopeGlobal}}},
				agent.Delta{ChatID: id, Text: "Coffee, then."},
				agent.TurnDone{ChatID: id}}
		}
	})
	h.send("what should I drink?")
	view := h.u.pane.views[1]
	test.Tap(button(t, view.root, "2 memories recalled"))
	shown := shownText(view.root)
	for _, s := range []string{"preference · global · score 0.80 · similar meaning 0.62\n",
		"fact · global · score 1.20 · matched: drink · similar meaning 0.56\n"} {
		if !strings.Contains(shown+"\n", s) {
			t.Errorf("the disclosure does not show %q:\n%s", s, shown)
		}
	}
}
