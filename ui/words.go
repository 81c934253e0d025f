package ui

import (
	"fyne.io/fyne/v2/lang"

	"engram/agent"
)

// sayWords is an agent error's or notice's message in the window's
// language: its key's wording, translated (translations/*.json hold every
// agent.Wording), filled with its arguments, which are shown as they are
// (the server's own words among them). A message without a key is text,
// the agent's English.
func sayWords(w agent.Words, text string) string {
	if agent.Wording(w.Key) == "" {
		return text
	}
	return w.Say(func(wording string, args map[string]string) string { return lang.L(wording, args) })
}
