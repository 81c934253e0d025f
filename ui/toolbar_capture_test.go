package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"engram/agent"
)

// captureBackend is the fake backend with a chat's own capture mode:
// SetCapture records each call and writes through the fake's writeHook.
type captureBackend struct {
	*fakeBackend
	callsMu sync.Mutex
	calls   []string // "chat ID: mode"
}

func (b *captureBackend) SetCapture(id string, m agent.CaptureMode) error {
	b.callsMu.Lock()
	b.calls = append(b.calls, id+": "+string(m))
	b.callsMu.Unlock()
	return b.write(func() error { return b.with(id, func(c *Chat) { c.Capture = m }) })
}

func (b *captureBackend) captureCalls() []string {
	b.callsMu.Lock()
	defer b.callsMu.Unlock()
	return slices.Clone(b.calls)
}

var _ captureSetter = (*captureBackend)(nil)

// newCaptureHarness runs a UI on a fake backend that can set a chat's
// capture mode, which prepare may fill first.
func newCaptureHarness(t *testing.T, prepare func(fb *fakeBackend)) (*harness, *captureBackend) {
	t.Helper()
	test.NewTempApp(t)
	fb := newFakeBackend(t)
	if prepare != nil {
		prepare(fb)
	}
	cb := &captureBackend{fakeBackend: fb}
	h := startHarness(t, cb)
	h.fb = fb
	return h, cb
}

// tapMenuItem taps the item labelled text of the pop-up menu on top.
func tapMenuItem(t *testing.T, h *harness, text string) {
	t.Helper()
	top := h.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no menu is open to tap %q", text)
	}
	// The innermost tappable widget that shows text is the item (the
	// pop-up around it is tappable too, and closes when tapped).
	var item fyne.Tappable
	for _, o := range test.LaidOutObjects(top) {
		tap, ok := o.(fyne.Tappable)
		w, isWidget := o.(fyne.Widget)
		if !ok || !isWidget {
			continue
		}
		for _, x := range test.LaidOutObjects(w) {
			if l, ok := x.(*canvas.Text); ok && l.Text == text {
				item = tap
			}
		}
	}
	if item == nil {
		t.Fatalf("the menu has no item %q", text)
	}
	test.Tap(item)
}

// checkedItems are the labels of the checked capture menu items.
func checkedItems(h *harness) []string {
	var out []string
	for _, it := range h.u.bar.captureItems() {
		if it.Checked {
			out = append(out, it.Label)
		}
	}
	return out
}

// TestChatCaptureMenu: the toolbar shows each chat's own capture mode,
// and a mode chosen from its menu is set for that chat only.
func TestChatCaptureMenu(t *testing.T) {
	h, cb := newCaptureHarness(t, func(fb *fakeBackend) {
		fb.cfg.Capture = agent.CaptureAsk
		fb.NewChat()
		fb.NewChat()
		fb.with("chat1", func(c *Chat) { c.Capture = agent.CaptureOff })
	})
	bar := h.u.bar
	if h.u.current != "chat2" || !bar.captureBox.Visible() || !bar.capture.Visible() ||
		bar.capture.Text != "Memories: as in Settings" {
		t.Fatalf("chat %q shows capture %q (visible %v), want chat2 as in Settings", h.u.current,
			bar.capture.Text, bar.captureBox.Visible() && bar.capture.Visible())
	}
	test.Tap(bar.capture)
	if got := checkedItems(h); !slices.Equal(got, []string{"As in Settings: Ask me first (suggestions to keep or discard)"}) {
		t.Fatalf("the menu checks %q", got)
	}
	tapMenuItem(t, h, "Automatically")
	h.settle()
	if got := cb.captureCalls(); !slices.Equal(got, []string{"chat2: auto"}) {
		t.Fatalf("SetCapture calls %q", got)
	}
	if c, _ := h.fb.Chat("chat2"); c.Capture != agent.CaptureAuto || bar.capture.Text != "Memories: automatic" {
		t.Fatalf("chat2 saved %q, shows %q", c.Capture, bar.capture.Text)
	}
	if c, _ := h.fb.Chat("chat1"); c.Capture != agent.CaptureOff {
		t.Fatalf("chat1's capture changed to %q", c.Capture)
	}

	h.u.list.list.Select(1)
	h.settle()
	if h.u.current != "chat1" || bar.capture.Text != "Memories: off" {
		t.Fatalf("chat %q shows %q, want chat1 off", h.u.current, bar.capture.Text)
	}
	if got := checkedItems(h); !slices.Equal(got, []string{"Off"}) {
		t.Fatalf("chat1's menu checks %q", got)
	}
	h.u.list.list.Select(0)
	h.settle()
	if h.u.current != "chat2" || bar.capture.Text != "Memories: automatic" {
		t.Fatalf("chat %q shows %q, want chat2 automatic", h.u.current, bar.capture.Text)
	}
	bar.captureItems()[0].Action() // back to the setting
	h.settle()
	if c, _ := h.fb.Chat("chat2"); c.Capture != "" || bar.capture.Text != "Memories: as in Settings" {
		t.Fatalf("chat2 saved %q, shows %q, want the setting's", c.Capture, bar.capture.Text)
	}
	if got := cb.captureCalls(); !slices.Equal(got, []string{"chat2: auto", "chat2: "}) {
		t.Fatalf("SetCapture calls %q", got)
	}
	if h.w.Canvas().Overlays().Top() != nil {
		t.Error("a dialog is open after saves that worked")
	}
}

// TestChatCaptureFailedSaveRollsBack: a failed save shows the saved mode
// again and says so; a failure that a later change overtook undoes nothing.
func TestChatCaptureFailedSaveRollsBack(t *testing.T) {
	h, cb := newCaptureHarness(t, nil)
	bar := h.u.bar
	id := h.u.current
	h.fb.writeHook = func(func() error) error { return errors.New("disk full") }
	bar.captureChanged(agent.CaptureAsk)
	if bar.capture.Text != "Memories: ask first" {
		t.Fatalf("before the save the toolbar shows %q", bar.capture.Text)
	}
	bar.captureChanged(agent.CaptureOff)
	h.settle()
	c, _ := h.fb.Chat(id)
	if c.Capture != "" || h.u.currentSession().info.Capture != "" || bar.capture.Text != "Memories: as in Settings" {
		t.Fatalf("saved %q, known %q, shown %q: want all back to the setting", c.Capture,
			h.u.currentSession().info.Capture, bar.capture.Text)
	}
	if h.w.Canvas().Overlays().Top() == nil {
		t.Error("the failed save was not reported")
	}

	h.fb.writeHook = slowFirstWrite(true)
	bar.captureChanged(agent.CaptureAsk)
	bar.captureChanged(agent.CaptureOff)
	h.settle()
	c, _ = h.fb.Chat(id)
	if c.Capture != agent.CaptureOff || h.u.currentSession().info.Capture != agent.CaptureOff ||
		bar.capture.Text != "Memories: off" {
		t.Fatalf("saved %q, known %q, shown %q: want the later off kept", c.Capture,
			h.u.currentSession().info.Capture, bar.capture.Text)
	}
	if want := []string{id + ": ask", id + ": off", id + ": ask", id + ": off"}; !slices.Equal(cb.captureCalls(), want) {
		t.Fatalf("SetCapture calls %q, want %q", cb.captureCalls(), want)
	}
	if p := h.u.currentSession().capture; p.queued != p.ended {
		t.Errorf("%d capture saves still followed", p.queued-p.ended)
	}
}

// TestChatCaptureHiddenWithoutSetter: a backend that cannot set a chat's
// capture mode gets no control for it.
func TestChatCaptureHiddenWithoutSetter(t *testing.T) {
	h := newHarness(t, nil)
	if h.u.bar.captureBox.Visible() {
		t.Fatal("the capture control shows on a backend without SetCapture")
	}
}

// TestChatCaptureFitsNarrowWindow: in English and Chinese and with each
// mode, the toolbar fits the narrowest window, where the capture control
// shows the mode by its icon, clear of the model; a wide window shows the
// label.
func TestChatCaptureFitsNarrowWindow(t *testing.T) {
	for _, zh := range []bool{false, true} {
		if zh {
			inChinese(t)
		}
		h, _ := newCaptureHarness(t, nil)
		bar := h.u.bar
		d := fyne.CurrentApp().Driver()
		for _, m := range []agent.CaptureMode{agent.CaptureAuto, agent.CaptureAsk, agent.CaptureOff, ""} {
			bar.captureChanged(m)
			h.settle()
			what := fmt.Sprintf("chinese %v, %q", zh, bar.capture.Text)
			if w := h.w.Content().MinSize().Width; w > 720 {
				t.Errorf("%s: the window cannot be narrower than %.0f px", what, w)
			}
			h.w.Resize(fyne.NewSize(720, 600))
			shown := bar.capture
			if !shown.Visible() {
				shown = bar.captureIcon
			}
			if !shown.Visible() || shown.Icon != captureIcon(m) {
				t.Errorf("%s: at 720 px the capture control shows icon %v (visible %v)", what, shown.Icon,
					shown.Visible())
			}
			end := d.AbsolutePositionForObject(shown).X + shown.Size().Width
			if model := d.AbsolutePositionForObject(bar.model).X; end > model {
				t.Errorf("%s: at 720 px the capture control ends at %.0f, over the model at %.0f", what, end, model)
			}
			if shown.Size().Width < shown.MinSize().Width {
				t.Errorf("%s: at 720 px the capture control is cut", what)
			}
			h.w.Resize(fyne.NewSize(1200, 760))
			if !bar.capture.Visible() || bar.captureIcon.Visible() || bar.capture.Size().Width < bar.capture.MinSize().Width {
				t.Errorf("%s: a wide window does not show the label", what)
			}
		}
		if zh {
			continue
		}
		// In English only the icon fits: it opens the same menu.
		h.w.Resize(fyne.NewSize(720, 600))
		if !bar.captureIcon.Visible() {
			t.Fatal("at 720 px the English label shows")
		}
		test.Tap(bar.captureIcon)
		tapMenuItem(t, h, "Off")
		h.settle()
		if c, _ := h.fb.Chat(h.u.current); c.Capture != agent.CaptureOff || bar.captureIcon.Icon != captureIcon(agent.CaptureOff) {
			t.Fatalf("from the icon's menu: saved %q, icon %v", c.Capture, bar.captureIcon.Icon)
		}
	}
}

// TestChatCaptureSavedByAgent sets a chat's capture mode on the real agent,
// from the toolbar's menu: the chat's file says it.
func TestChatCaptureSavedByAgent(t *testing.T) {
	ah := newAgentHarness(t, nil)
	bar := ah.u.bar
	if !bar.capture.Visible() || bar.capture.Text != "Memories: as in Settings" {
		t.Fatalf("the agent's chat shows capture %q (visible %v)", bar.capture.Text, bar.capture.Visible())
	}
	id := ah.u.current
	test.Tap(bar.capture)
	tapMenuItem(t, ah.harness, "Off")
	ah.settle()
	b, err := os.ReadFile(filepath.Join(ah.paths.ChatsDir(), id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk struct {
		Capture agent.CaptureMode `json:"capture"`
	}
	if err := json.Unmarshal(b, &onDisk); err != nil || onDisk.Capture != agent.CaptureOff {
		t.Fatalf("the chat file says capture %q (%v):\n%s", onDisk.Capture, err, b)
	}
	c, err := ah.ag.Chat(id)
	if err != nil || c.Capture != agent.CaptureOff || bar.capture.Text != "Memories: off" {
		t.Fatalf("the agent has capture %q (%v), the toolbar shows %q", c.Capture, err, bar.capture.Text)
	}
}
