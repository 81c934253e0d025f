package ui

import (
	"testing"

	"engram/agent"
)

// TestSettingsCaptureMode: the capture setting is offered with three
// choices, shows the saved one, and Save writes the chosen mode (off also
// switches distillation off, as older configs say it).
func TestSettingsCaptureMode(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		fb.cfg.Distill, fb.cfg.Capture = true, agent.CaptureAuto
	})
	h.settle()
	h.u.openSettings()
	h.settle()
	f := h.u.settings
	if f == nil {
		t.Fatal("the settings did not open")
	}
	if len(f.capture.Options) != 3 || f.capture.Selected != "Automatically" {
		t.Fatalf("capture offers %q, shows %q", f.capture.Options, f.capture.Selected)
	}
	f.capture.SetSelected(captureName(agent.CaptureAsk))
	overlayButton(t, h, "Save")
	h.settle()
	if c := h.fb.Config(); c.Capture != agent.CaptureAsk || !c.Distill {
		t.Fatalf("saved capture %q, distill %v", c.Capture, c.Distill)
	}

	h.u.openSettings()
	h.settle()
	f = h.u.settings
	if f.capture.Selected != captureName(agent.CaptureAsk) {
		t.Fatalf("the settings reopen showing %q", f.capture.Selected)
	}
	f.capture.SetSelected(captureName(agent.CaptureOff))
	overlayButton(t, h, "Save")
	h.settle()
	if c := h.fb.Config(); c.Capture != agent.CaptureOff || c.Distill {
		t.Fatalf("saved capture %q, distill %v", c.Capture, c.Distill)
	}
}
