package ui

import (
	"slices"

	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
)

// semanticBuiltinName is how the settings show the built-in model of
// semantic recall.
func semanticBuiltinName() string { return lang.L("Built-in (offline)") }

// semanticName is how the settings show the model of Config.SemanticRecall.
func semanticName(model string) string {
	if model == "" || model == agent.SemanticBuiltin {
		return semanticBuiltinName()
	}
	return model
}

// semanticModel is the Config.SemanticRecall of a name semanticName shows.
func semanticModel(name string) string {
	if name == semanticBuiltinName() || name == "" {
		return agent.SemanticBuiltin
	}
	return name
}

// semanticOptions are the choices of semantic recall: the built-in model,
// then the endpoint's models, with the chosen one kept when the endpoint
// does not list it.
func semanticOptions(models []string, chosen string) []string {
	out := []string{semanticBuiltinName()}
	if m := semanticModel(chosen); m != agent.SemanticBuiltin && !slices.Contains(models, m) {
		out = append(out, m)
	}
	return append(out, models...)
}

// newSemanticSelect is the settings' choice of semantic recall's model.
func newSemanticSelect(c agent.Config) *widget.Select {
	name := semanticName(c.SemanticRecall)
	s := widget.NewSelect(semanticOptions(nil, name), nil)
	s.SetSelected(name)
	return s
}
