package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"engram/agent"
)

func TestReasoningSectionOpensLiveAndCollapses(t *testing.T) {
	test.NewTempApp(t)
	changed := 0
	r := newReasoningView(func() { changed++ })
	w := test.NewWindow(r)
	defer w.Close()
	w.Resize(fyne.NewSize(420, 160))

	r.set("The user asks about tabs.", true, 0)
	if shown := shownText(r); !strings.Contains(shown, "Thinking…") || !strings.Contains(shown, "about tabs") {
		t.Errorf("while thinking the section shows:\n%s", shown)
	}
	r.set("The user asks about tabs. gofmt uses them.", true, 0)
	if !strings.Contains(shownText(r), "gofmt uses them") {
		t.Error("the reasoning does not grow live")
	}
	r.set("The user asks about tabs. gofmt uses them.", false, 12400*time.Millisecond)
	if shown := shownText(r); !strings.Contains(shown, "Thought for 12 s") || strings.Contains(shown, "gofmt") {
		t.Errorf("after thinking the section shows:\n%s", shown)
	}
	test.AssertRendersToMarkup(t, "reasoning_collapsed.xml", w.Canvas())

	test.Tap(button(t, r, "Thought for 12 s"))
	if !strings.Contains(shownText(r), "gofmt uses them") || changed != 1 {
		t.Errorf("a tap does not open it (changed %d):\n%s", changed, shownText(r))
	}
	test.AssertRendersToMarkup(t, "reasoning_open.xml", w.Canvas())
	r.set("The user asks about tabs. gofmt uses them.", false, 12400*time.Millisecond)
	if !strings.Contains(shownText(r), "gofmt uses them") {
		t.Error("an update closed what the person opened")
	}
	test.Tap(button(t, r, "Thought for 12 s"))
	if strings.Contains(shownText(r), "gofmt") {
		t.Error("a second tap does not close it")
	}
}

func TestReasoningTitles(t *testing.T) {
	test.NewTempApp(t)
	for _, tc := range []struct {
		thinking bool
		took     time.Duration
		want     string
	}{
		{true, 0, "Thinking…"},
		{false, 0, "Reasoning"},
		{false, 300 * time.Millisecond, "Thought for less than a second"},
		{false, 1600 * time.Millisecond, "Thought for 2 s"},
		{false, 95 * time.Second, "Thought for 95 s"},
	} {
		r := newReasoningView(nil)
		r.set("x", tc.thinking, tc.took)
		if got := r.title(); got != tc.want {
			t.Errorf("title(%v, %v) = %q, want %q", tc.thinking, tc.took, got, tc.want)
		}
	}
}

func TestReasoningAnswerInTheChat(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.script = func(id, text string) []agent.Event {
			return []agent.Event{
				agent.TurnStarted{ChatID: id, Text: text},
				agent.RecallDone{ChatID: id},
				agent.ThinkingStarted{ChatID: id, At: time.Now()},
				agent.ReasoningDelta{ChatID: id, Text: "They want tabs; "},
				agent.ReasoningDelta{ChatID: id, Text: "gofmt does that."},
				agent.ThinkingDone{ChatID: id, Took: 12 * time.Second, Total: 12 * time.Second},
				agent.Delta{ChatID: id, Text: "Run gofmt."},
				agent.TurnDone{ChatID: id, At: time.Now()},
			}
		}
	})
	test.Type(h.u.pane.input, "How do I indent Go?")
	pressReturn(h.u.pane.input, false)
	h.waitFor("the answer", func() bool {
		a := h.u.currentSession().lastAnswer()
		return a != nil && !a.pending
	})
	a := h.u.currentSession().lastAnswer()
	if a.Text != "Run gofmt." || a.Reasoning != "They want tabs; gofmt does that." || a.ThinkingTime != 12*time.Second {
		t.Fatalf("answer %+v", a.Message)
	}
	view := h.u.pane.views[len(h.u.pane.views)-1]
	shown := shownText(view.root)
	if !strings.Contains(shown, "Thought for 12 s") || !strings.Contains(shown, "Run gofmt.") ||
		strings.Contains(shown, "They want tabs") {
		t.Errorf("the answer shows:\n%s", shown)
	}
	test.Tap(button(t, view.root, "Thought for 12 s"))
	if !strings.Contains(shownText(view.root), "They want tabs; gofmt does that.") {
		t.Errorf("opened, the answer shows:\n%s", shownText(view.root))
	}
}

// TestThinkingPlaceholderGivesWayToReasoning: the body's "Thinking…" of an
// answer that has nothing yet goes once reasoning arrives (the section
// above it says so), before any text.
func TestThinkingPlaceholderGivesWayToReasoning(t *testing.T) {
	test.NewTempApp(t)
	m := &msgState{Message: agent.Message{Role: agent.RoleAssistant}, pending: true}
	v := newMessageView(m, messageActions{})
	if !strings.Contains(shownText(v.body), "Thinking…") {
		t.Fatalf("before anything arrived the body shows:\n%s", shownText(v.body))
	}
	m.thinking, m.Reasoning = true, "The user asks about tabs."
	v.update()
	if shown := shownText(v.body); shown != "" {
		t.Errorf("while reasoning the body shows:\n%s", shown)
	}
	if !strings.Contains(shownText(v.root), "about tabs") {
		t.Errorf("the reasoning is not shown:\n%s", shownText(v.root))
	}
}

// While the model thinks, "Thinking…" shows once: in the reasoning
// section's header, not also as the answer's placeholder, before and after
// the first reasoning arrives; once the answer streams it is gone.
func TestThinkingShowsOnce(t *testing.T) {
	test.NewTempApp(t)
	m := &msgState{Message: Message{Role: "assistant"}, pending: true}
	v := newMessageView(m, messageActions{})
	w := test.NewWindow(v.root)
	defer w.Close()
	w.Resize(fyne.NewSize(560, 320))
	if n := strings.Count(shownText(v.root), "Thinking…"); n != 1 {
		t.Errorf("before anything arrived %q shows %d times, want once", "Thinking…", n)
	}
	for _, reasoning := range []string{"", "The user asks about tabs."} {
		m.thinking, m.Reasoning = true, reasoning
		v.update()
		if n := strings.Count(shownText(v.root), "Thinking…"); n != 1 {
			t.Errorf("thinking with reasoning %q: %q shows %d times, want once:\n%s", reasoning, "Thinking…", n,
				shownText(v.root))
		}
	}
	m.thinking, m.ThinkingTime, m.Text = false, 3*time.Second, "Tabs."
	v.update()
	if shown := shownText(v.root); strings.Contains(shown, "Thinking…") || !strings.Contains(shown, "Thought for 3 s") {
		t.Errorf("after thinking:\n%s", shown)
	}
}
