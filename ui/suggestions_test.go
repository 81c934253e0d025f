package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/memory"
)

var _ Reviewer = (*agent.Agent)(nil)

// fakeReviewer holds suggestions and proposals in memory and records the
// calls.
type fakeReviewer struct {
	mu    sync.Mutex
	sugg  []agent.Suggestion
	props []agent.Forgotten
	calls []string
}

func (f *fakeReviewer) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeReviewer) Suggestions() []agent.Suggestion {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sugg)
}

func (f *fakeReviewer) drop(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.sugg)
	f.sugg = slices.DeleteFunc(f.sugg, func(s agent.Suggestion) bool { return s.ID == id })
	return len(f.sugg) < n
}

func (f *fakeReviewer) KeepSuggestion(id, text string) (memory.Entry, error) {
	f.record("keep " + id + " " + text)
	if !f.drop(id) {
		return memory.Entry{}, errors.New("no such suggestion")
	}
	return memory.Entry{ID: "new", Text: text}, nil
}

func (f *fakeReviewer) DiscardSuggestion(id string) error {
	f.record("discard " + id)
	f.drop(id)
	return nil
}

func (f *fakeReviewer) Proposals() []agent.Forgotten {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.props)
}

func (f *fakeReviewer) dropProposal(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.props = slices.DeleteFunc(f.props, func(p agent.Forgotten) bool { return p.Entry.ID == id })
}

func (f *fakeReviewer) AcceptForget(p agent.Forgotten) error {
	f.record("forget " + p.Entry.ID)
	f.dropProposal(p.Entry.ID)
	return nil
}

func (f *fakeReviewer) DismissForget(p agent.Forgotten) error {
	f.record("dismiss " + p.Entry.ID)
	f.dropProposal(p.Entry.ID)
	return nil
}

func (f *fakeReviewer) UndoForget(p agent.Forgotten) error {
	f.record("undo " + p.Entry.ID)
	return nil
}

func (f *fakeReviewer) Learn(context.Context, agent.LearnOptions) (agent.LearnTotals, error) {
	f.record("learn")
	return agent.LearnTotals{Turns: 3, Saved: 2}, nil
}

func (f *fakeReviewer) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// newTestReview builds a review panel in a window, its work run at once,
// with the translations loaded as New loads them (plural forms need them).
func newTestReview(t *testing.T, f *fakeReviewer) (*reviewPanel, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	if err := SetupLanguage(LanguageSystem); err != nil {
		t.Fatal(err)
	}
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	now := func(work func() func()) {
		if apply := work(); apply != nil {
			apply()
		}
	}
	p := newReviewPanel(f, now, func(fn func()) { fn() }, w)
	w.SetContent(p.root)
	w.Resize(fyne.NewSize(420, 700))
	p.refresh()
	return p, w
}

func TestReviewSuggestionsKeepEditDiscard(t *testing.T) {
	f := &fakeReviewer{sugg: []agent.Suggestion{
		{ID: "s1", Kind: memory.KindPreference, Scope: agent.ScopeGlobal, Text: "The user prefers dark mode."},
		{ID: "s2", Kind: memory.KindFact, Scope: agent.ScopeGlobal, Text: "The user bikes to work."},
		{ID: "s3", Kind: memory.KindFact, Scope: agent.ScopeGlobal, Text: "The user has a cat."},
	}}
	p, _ := newTestReview(t, f)
	if got := shownText(p.root); !strings.Contains(got, "3 suggested memories") || !strings.Contains(got, "dark mode") {
		t.Fatalf("panel shows:\n%s", got)
	}
	test.Tap(buttons(t, p.root, "Keep")[0])
	test.Tap(buttons(t, p.root, "Discard")[1]) // s3, now second
	test.Tap(button(t, p.root, "Edit"))
	if p.edit == nil || p.edit.Text != "The user bikes to work." {
		t.Fatal("Edit does not open the text")
	}
	p.edit.SetText("The user bikes to work every day.")
	test.Tap(button(t, p.root, "Keep"))
	want := []string{"keep s1 ", "discard s3", "keep s2 The user bikes to work every day."}
	if got := f.called(); !slices.Equal(got, want) {
		t.Errorf("calls = %q, want %q", got, want)
	}
	if got := shownText(p.root); strings.Contains(got, "suggested") {
		t.Errorf("suggestions left after keep and discard:\n%s", got)
	}
}

func TestReviewEditToSecretAsksFirst(t *testing.T) {
	f := &fakeReviewer{sugg: []agent.Suggestion{{ID: "s1", Kind: memory.KindFact, Text: "The user has a server."}}}
	p, w := newTestReview(t, f)
	test.Tap(button(t, p.root, "Edit"))
	p.edit.SetText("The server password is Xy9kd82q")
	test.Tap(button(t, p.root, "Keep"))
	if len(f.called()) != 0 {
		t.Fatalf("kept without asking: %q", f.called())
	}
	top := w.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(shownText(top), "looks like a password") || strings.Contains(shownText(top), "Xy9kd82q") {
		t.Fatalf("no confirmation (or it shows the secret): %v", top)
	}
	test.Tap(button(t, top, "Yes"))
	if got := f.called(); len(got) != 1 || got[0] != "keep s1 The server password is Xy9kd82q" {
		t.Errorf("calls after confirming = %q", got)
	}
}

func TestReviewForgetProposalAndUndo(t *testing.T) {
	mine := agent.Forgotten{Scope: agent.ScopeGlobal, Entry: memory.Entry{ID: "m7", Text: "The user's office is in Oslo."},
		Reason: "the user moved"}
	f := &fakeReviewer{props: []agent.Forgotten{mine}}
	p, _ := newTestReview(t, f)
	if got := shownText(p.root); !strings.Contains(got, "Forget this memory? The user's office is in Oslo.") ||
		!strings.Contains(got, "why: the user moved") {
		t.Fatalf("panel shows:\n%s", got)
	}
	test.Tap(button(t, p.root, "Forget"))
	if got := shownText(p.root); !strings.Contains(got, "Forgot: The user's office is in Oslo.") {
		t.Fatalf("no undo after forgetting:\n%s", got)
	}
	test.Tap(button(t, p.root, "Undo"))
	// A forget done by consolidation arrives as an event, with undo.
	auto := agent.Forgotten{Scope: agent.ScopeGlobal, Entry: memory.Entry{ID: "a1", Text: "The user lives in Oslo."}}
	p.applyEvent(agent.MemoriesRevised{Forgotten: []agent.Forgotten{auto}})
	got := shownText(p.root)
	if !strings.Contains(got, "Forgot: The user lives in Oslo.") {
		t.Fatalf("panel after the event:\n%s", got)
	}
	test.Tap(button(t, p.root, "Undo"))
	if want := []string{"forget m7", "undo m7", "undo a1"}; !slices.Equal(f.called(), want) {
		t.Errorf("calls = %q, want %q", f.called(), want)
	}
	if got := shownText(p.root); strings.Contains(got, "Forgot:") {
		t.Errorf("rows left:\n%s", got)
	}
}

func TestReviewLearnShowsTotals(t *testing.T) {
	f := &fakeReviewer{}
	p, _ := newTestReview(t, f)
	done := make(chan struct{})
	p.do = func(fn func()) {
		fn()
		if p.learning == nil {
			select {
			case <-done:
			default:
				close(done)
			}
		}
	}
	test.Tap(button(t, p.root, "Learn from past chats"))
	<-done
	if got := p.status.Text; !strings.Contains(got, "Learned from 3 turns: 2 saved") {
		t.Errorf("status = %q", got)
	}
}

// buttons finds the visible buttons labelled text under o, in order.
func buttons(t *testing.T, o fyne.CanvasObject, text string) []*widget.Button {
	t.Helper()
	var out []*widget.Button
	for _, b := range objects[*widget.Button](o) {
		if b.Text == text && b.Visible() {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no button %q", text)
	}
	return out
}

func TestInspectorAddSecretAsksFirst(t *testing.T) {
	h := newHarness(t, nil)
	i := h.u.insp
	path := filepath.Join(h.fb.dir, "memory.json")
	live := func() []string {
		if _, err := os.Stat(path); err != nil {
			return nil
		}
		return liveTexts(readEntries(t, path))
	}
	test.Tap(i.add)
	test.Type(i.ed.text, "My AWS key is AKIAIOSFODNN7EXAMPLE")
	test.Tap(i.ed.saveB)
	h.settle()
	if got := live(); len(got) != 0 {
		t.Fatalf("saved without asking: %q", got)
	}
	top := h.w.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(shownText(top), "Keep it anyway?") {
		t.Fatalf("no confirmation: %v", top)
	}
	test.Tap(button(t, top, "No"))
	h.settle()
	if got := live(); len(got) != 0 {
		t.Fatalf("saved after No: %q", got)
	}
	test.Tap(i.ed.saveB)
	test.Tap(button(t, h.w.Canvas().Overlays().Top(), "Yes"))
	h.settle()
	if got := live(); len(got) != 1 {
		t.Fatalf("not saved after Yes: %q", got)
	}
}

// The summary of a learning run closes with its × (which says Close), and
// a new run's progress takes its place, with no × while the run goes on.
func TestReviewLearnSummaryCloses(t *testing.T) {
	f := &fakeReviewer{}
	p, _ := newTestReview(t, f)
	queued := make(chan func(), 8)
	p.do = func(fn func()) { queued <- fn }
	learn := func() {
		t.Helper()
		test.Tap(button(t, p.root, "Learn from past chats"))
		if got := shownText(p.root); strings.Contains(got, "Learned from") || !strings.Contains(got, "Learning from past chats…") {
			t.Errorf("a new run shows:\n%s", got)
		}
		if p.closeB.Visible() {
			t.Error("the progress of a run going on can be closed")
		}
		for p.learning != nil {
			(<-queued)()
		}
	}
	learn()
	if !p.statusBox.Visible() || !strings.Contains(shownText(p.root), "Learned from 3 turns: 2 saved") {
		t.Fatalf("no summary after the run:\n%s", shownText(p.root))
	}
	if !p.closeB.Visible() || p.closeB.tip != "Close" {
		t.Fatalf("the summary has no close button with a tip (visible %v, tip %q)", p.closeB.Visible(), p.closeB.tip)
	}
	p.closeB.MouseIn(&desktop.MouseEvent{})
	if p.tipText.Text != "Close" || !p.tipBox.Visible() {
		t.Errorf("over the close button the tip says %q", p.tipText.Text)
	}
	test.Tap(p.closeB)
	if p.statusBox.Visible() {
		t.Errorf("the summary %q is still shown after Close", p.status.Text)
	}
	if p.tipBox.Visible() {
		t.Error("the tip stays after the summary closed")
	}
	learn()
	if !p.statusBox.Visible() || !strings.Contains(shownText(p.root), "Learned from 3 turns") {
		t.Errorf("the second run's summary is not shown:\n%s", shownText(p.root))
	}
}
