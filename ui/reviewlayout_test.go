package ui

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"engram/agent"
	"engram/memory"
)

// reviewBackend is the fake backend with a review panel's reviewer.
type reviewBackend struct {
	*fakeBackend
	*fakeReviewer
}

// newReviewHarness runs a UI with a review panel on a fake backend, the
// reviewer holding f's suggestions.
func newReviewHarness(t *testing.T, f *fakeReviewer, prepare func(fb *fakeBackend)) *harness {
	t.Helper()
	fb := newFakeBackend(t)
	if prepare != nil {
		prepare(fb)
	}
	h := startHarness(t, reviewBackend{fb, f})
	h.fb = fb
	fb.mu.Lock()
	fb.echo = func(ev agent.Event) { h.enqueue(func() { h.u.applyEvent(ev) }) }
	fb.mu.Unlock()
	return h
}

// A review panel shows a suggestion whole; holding many, it scrolls within
// half of what the inspector's bars leave, and a memory's detail keeps the
// rest.
func TestReviewPanelLeavesTheDetailRoom(t *testing.T) {
	f := &fakeReviewer{}
	suggest := func(n int) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for range n {
			k := len(f.sugg)
			f.sugg = append(f.sugg, agent.Suggestion{ID: fmt.Sprint("s", k), Kind: memory.KindFact, Scope: agent.ScopeGlobal,
				Text: "The user keeps a note about the deploy script, number " + fmt.Sprint(k) + strings.Repeat(", and more", 3)})
		}
	}
	suggest(1)
	var es []memory.Entry
	h := newReviewHarness(t, f, func(fb *fakeBackend) {
		es = addMemories(t, fb, memory.Entry{Kind: memory.KindFact, Text: "The deploy script is scripts/deploy.sh."})
	})
	h.settle()
	i := h.u.insp
	i.detail.open(es[0])
	h.settle()
	var panel fyne.CanvasObject = h.u.review.root
	for _, s := range objects[*container.Scroll](i.body) {
		if s.Content == h.u.review.root {
			panel = s
		}
	}
	one := panel.Size().Height
	if need := h.u.review.root.MinSize().Height; one < need {
		t.Errorf("one suggestion is cut: the panel is %v high for content of %v", one, need)
	}
	suggest(11)
	h.u.review.refresh()
	h.settle()
	body, detail, panelH := i.body.Size().Height, i.detail.root.Size().Height, panel.Size().Height
	if need := h.u.review.root.MinSize().Height; panelH >= need {
		t.Errorf("the panel is %v high for content of %v: it does not scroll", panelH, need)
	}
	if panelH <= one {
		t.Errorf("the panel stays %v high with 12 suggestions", panelH)
	}
	if panelH > body/2 {
		t.Errorf("the panel takes %v of the column's %v", panelH, body)
	}
	if detail < panelH || detail < 200 {
		t.Errorf("the detail is squeezed to %v (the panel %v, the column %v)", detail, panelH, body)
	}
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject
	if d, r := abs(i.detail.root).Y+detail, abs(panel).Y; d > r {
		t.Errorf("the detail (to %v) runs under the panel (from %v)", d, r)
	}
}
