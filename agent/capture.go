package agent

import (
	"errors"
	"fmt"
	"strings"

	"engram/agent/distill"
	"engram/memory"
)

// The memory pipeline's types (package distill), under the names of the
// agent's API and events.
type (
	Revision           = distill.Revision
	Forgotten          = distill.Forgotten
	MemoriesRevised    = distill.MemoriesRevised
	Suggestion         = distill.Suggestion
	SuggestionsChanged = distill.SuggestionsChanged
)

// ParseCaptureMode reads a capture mode ("" is "").
func ParseCaptureMode(s string) (CaptureMode, error) {
	switch m := CaptureMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", CaptureAuto, CaptureAsk, CaptureOff:
		return m, nil
	}
	return "", fmt.Errorf("unknown capture mode %q (want auto, ask or off)", s)
}

// captureMode is the mode of a chat: its own, else the setting's.
func captureMode(cfg Config, chat ChatInfo) CaptureMode {
	if chat.Capture != "" {
		return chat.Capture
	}
	return cfg.CaptureSetting()
}

// CaptureSetting is the capture mode of the chats that choose none:
// Capture, CaptureOff when distillation is switched off, else CaptureAuto.
func (c Config) CaptureSetting() CaptureMode {
	switch {
	case !c.Distill:
		return CaptureOff
	case c.Capture != "":
		return c.Capture
	}
	return CaptureAuto
}

// capturing reports whether a turn of the chat is distilled.
func (a *Agent) capturing(cfg Config, chatID string) bool {
	info, err := a.chats.Info(chatID)
	return err == nil && !info.Temporary && captureMode(cfg, info) != CaptureOff
}

// memoryOff reports whether the person switched memory off for the chat
// (its own capture mode, else the setting's): then the model saves
// nothing, not even through the memory tools. The older "distill": false
// alone, without a capture mode, only stops distillation.
func (a *Agent) memoryOff(cfg Config, chatID string) bool {
	mode := cfg.Capture
	info, err := a.chats.Info(chatID)
	if err == nil && info.Temporary {
		return true
	}
	if err == nil && info.Capture != "" {
		mode = info.Capture
	}
	return mode == CaptureOff
}

// SetCapture sets a chat's capture mode ("" follows the setting).
func (a *Agent) SetCapture(chatID string, mode CaptureMode) error {
	m, err := ParseCaptureMode(string(mode))
	if err != nil {
		return fmt.Errorf("set capture: %w", err)
	}
	return a.chats.Update(chatID, func(c *Chat) bool { c.Capture = m; return true })
}

// Suggestions lists the held suggestions, oldest first.
func (a *Agent) Suggestions() []Suggestion { return a.pipe.Suggestions() }

// KeepSuggestion stores a suggestion as a memory the person kept (Source
// user), with text if it is not empty (the person edited it), and removes
// it from the suggestions. One that replaces a memory supersedes it (the
// old version stays as history); if that memory is gone it is added. A
// text that looks like a secret is refused with memory.ErrSecret.
func (a *Agent) KeepSuggestion(id, text string) (memory.Entry, error) {
	s, ok := a.pipe.Suggestion(id)
	if !ok {
		return memory.Entry{}, fmt.Errorf("keep suggestion: no memory suggestion %q", id)
	}
	if strings.TrimSpace(text) != "" {
		s.Text = text
	}
	kept, err := a.pipe.Keep(s, a.Memory)
	if err != nil {
		return kept, fmt.Errorf("keep suggestion: %w", err)
	}
	a.emit(SuggestionsChanged{ChatID: s.ChatID})
	return kept, nil
}

// DiscardSuggestion drops a suggestion.
func (a *Agent) DiscardSuggestion(id string) error {
	s, err := a.pipe.Take(id)
	if err != nil {
		return fmt.Errorf("discard suggestion: %w", err)
	}
	a.emit(SuggestionsChanged{ChatID: s.ChatID})
	return nil
}

// Proposals lists the pending forget proposals, oldest first.
func (a *Agent) Proposals() []Forgotten { return a.pipe.Proposals() }

// AcceptForget carries out a forget proposal: the memory and its history
// are forgotten, their text removed from the file and from the chats' tool
// records at once (UndoForget with f adds the memory again).
func (a *Agent) AcceptForget(f Forgotten) error {
	if err := a.pipe.DropProposal(f); err != nil {
		return fmt.Errorf("forget memory %s: %w", f.Entry.ID, err)
	}
	ss, err := a.storeOf(f.Scope, f.Dir)
	if err != nil {
		return fmt.Errorf("forget memory %s: %w", f.Entry.ID, err)
	}
	_, err = distill.Forget(ss.target(), f.Entry.ID)
	return err
}

// DismissForget drops a forget proposal; the memory stays as it is.
func (a *Agent) DismissForget(f Forgotten) error {
	if err := a.pipe.DropProposal(f); err != nil {
		return fmt.Errorf("keep memory %s: %w", f.Entry.ID, err)
	}
	return nil
}

// UndoForget brings back a forgotten memory: the file no longer has its
// text, so it is added again from f (with a new ID, its kind, source, pin
// and creation time; its older versions stay forgotten).
func (a *Agent) UndoForget(f Forgotten) error {
	st, err := a.Memory(f.Scope, f.Dir)
	if err != nil {
		return fmt.Errorf("undo forget %s: %w", f.Entry.ID, err)
	}
	err = st.Restore(f.Entry.ID)
	if errors.Is(err, memory.ErrForgotten) {
		e := f.Entry
		_, _, err = st.Add(memory.Entry{Kind: e.Kind, Text: e.Text, Source: e.Source, Pinned: e.Pinned, Created: e.Created})
	}
	if err != nil {
		return fmt.Errorf("undo forget %s: %w", f.Entry.ID, err)
	}
	return nil
}
