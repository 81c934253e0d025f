package ui

import (
	"testing"

	"fyne.io/fyne/v2"
)

// At 600 px the toolbar folds the chat's controls (project, AGENTS.md,
// Auto-recall, capture) into its ⋯ menu instead of drawing the model over
// them; wide again, it unfolds. The menu's Auto-recall works.
func TestToolbarFoldsWhenNarrow(t *testing.T) {
	h := newHarness(t, nil)
	bar := h.u.bar
	resize := func(w float32) {
		h.w.Resize(fyne.NewSize(w, 600))
		h.settle()
	}
	resize(1200)
	if bar.more.Visible() || !bar.recall.Visible() || !bar.project.Visible() {
		t.Fatalf("at 1200 px: ⋯ %v, Auto-recall %v, project %v", bar.more.Visible(), bar.recall.Visible(),
			bar.project.Visible())
	}
	resize(600)
	if !bar.more.Visible() {
		t.Fatal("at 600 px there is no ⋯ menu")
	}
	model := fyne.CurrentApp().Driver().AbsolutePositionForObject(bar.model).X
	recallEnd := fyne.CurrentApp().Driver().AbsolutePositionForObject(bar.recall).X + bar.recall.Size().Width
	if bar.recall.Visible() && recallEnd > model {
		t.Errorf("at 600 px Auto-recall (to %v) runs under the model (from %v)", recallEnd, model)
	}
	labels := map[string]*fyne.MenuItem{}
	for _, it := range bar.moreItems() {
		labels[it.Label] = it
	}
	for _, want := range []string{"No project", "AGENTS.md –", "Auto-recall"} {
		if labels[want] == nil {
			t.Errorf("the ⋯ menu has no %q: %v", want, labels)
		}
	}
	if labels["No project"] != nil && labels["No project"].ChildMenu == nil {
		t.Error("the project item does not open the project menu")
	}
	if it := labels["Auto-recall"]; it != nil {
		if !it.Checked {
			t.Error("the menu's Auto-recall is not checked while it is on")
		}
		it.Action()
		h.settle()
		if c, _ := h.fb.Chat(h.u.current); c.AutoRecall || h.u.currentSession().info.AutoRecall {
			t.Error("the menu's Auto-recall did not turn it off")
		}
	}
	resize(1200)
	if bar.more.Visible() || !bar.recall.Visible() {
		t.Errorf("wide again: ⋯ %v, Auto-recall %v", bar.more.Visible(), bar.recall.Visible())
	}
}
