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

// savedMessage is the state of a message read from its chat file: an
// error the agent gave a wording key is worded in the window's language
// (the file keeps the English), and offers Settings as every saved error
// does.
func savedMessage(m Message) *msgState {
	return &msgState{Message: wordSaved(m), settings: m.Err != ""}
}

// wordSaved returns m with its saved error worded in the window's language.
func wordSaved(m Message) Message {
	if m.ErrKey != "" {
		m.Err = sayWords(agent.Words{Key: agent.Key(m.ErrKey), Args: m.ErrArgs}, m.Err)
	}
	return m
}
