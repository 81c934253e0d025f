package ui

import (
	"slices"
	"testing"

	"engram/agent"
)

func TestSemanticRecallSetting(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) { fb.cfg.SemanticRecall = "gone-embed" })
	f := newSettingsForm(h.u, h.u.cfg, agent.ConfigSources{})
	if f.semantic.Selected != "gone-embed" {
		t.Fatalf("the setting shows %q", f.semantic.Selected)
	}
	f.loadModels()
	h.waitFor("the models", func() bool { return len(f.models) > 0 })
	// The built-in model first, the chosen one kept although the endpoint
	// no longer lists it, then the endpoint's.
	want := append([]string{semanticBuiltinName(), "gone-embed"}, f.models...)
	if !slices.Equal(f.semantic.Options, want) {
		t.Fatalf("options %q, want %q", f.semantic.Options, want)
	}
	f.semantic.SetSelected(f.models[0])
	c, err := f.config(h.u.cfg)
	if err != nil || c.SemanticRecall != f.models[0] {
		t.Fatalf("config semantic_recall %q, %v", c.SemanticRecall, err)
	}
	f.semantic.SetSelected(semanticBuiltinName())
	if c, _ := f.config(h.u.cfg); c.SemanticRecall != agent.SemanticBuiltin {
		t.Fatalf("built-in saved as %q", c.SemanticRecall)
	}
	if got := newSemanticSelect(agent.Config{}).Selected; got != semanticBuiltinName() {
		t.Fatalf("the default shows %q", got)
	}
}
