package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"engram/memory"
	"engram/memory/durable"
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
	return err == nil && captureMode(cfg, info) != CaptureOff
}

// SetCapture sets a chat's capture mode ("" follows the setting).
func (a *Agent) SetCapture(chatID string, mode CaptureMode) error {
	m, err := ParseCaptureMode(string(mode))
	if err != nil {
		return fmt.Errorf("set capture: %w", err)
	}
	return a.chats.Update(chatID, func(c *Chat) bool { c.Capture = m; return true })
}

// Suggestion is a distilled memory held for the person (CaptureAsk): it is
// not in any store, so it is never recalled, until KeepSuggestion.
// Replaces is the ID of the memory it would update, if any.
type Suggestion struct {
	ID       string      `json:"id"`
	ChatID   string      `json:"chat_id,omitempty"`
	Scope    Scope       `json:"scope"`
	Dir      string      `json:"dir,omitempty"`
	Kind     memory.Kind `json:"kind,omitempty"`
	Text     string      `json:"text"`
	Replaces string      `json:"replaces,omitempty"`
	Created  time.Time   `json:"created"`
}

// SuggestionsChanged reports that the held suggestions changed.
type SuggestionsChanged struct {
	ChatID string
}

// Chat implements Event.
func (e SuggestionsChanged) Chat() string { return e.ChatID }

// pending holds the suggestions (saved to suggestions.json in the data
// directory, so they survive a restart) and the forget proposals (kept for
// the run: a proposal that is lost leaves the memory as it was).
type pending struct {
	mu        sync.Mutex
	loaded    bool
	sugg      []Suggestion
	proposals []Forgotten
}

// suggestionsFile is where the suggestions are kept.
func (a *Agent) suggestionsFile() string {
	return filepath.Join(a.opts.Paths.DataDir, "suggestions.json")
}

// loadLocked reads the suggestions file once; a missing file is none.
func (a *Agent) loadLocked() {
	if a.pend.loaded {
		return
	}
	a.pend.loaded = true
	b, err := os.ReadFile(a.suggestionsFile())
	if err != nil {
		return
	}
	var s []Suggestion
	if err := json.Unmarshal(b, &s); err != nil {
		a.emit(Notice{Text: fmt.Sprintf("The memory suggestions in %s could not be read: %v", a.suggestionsFile(), err)})
		return
	}
	a.pend.sugg = s
}

func (a *Agent) saveLocked() error {
	b, err := json.MarshalIndent(a.pend.sugg, "", "  ")
	if err != nil {
		return fmt.Errorf("save suggestions: %w", err)
	}
	if err := os.MkdirAll(a.opts.Paths.DataDir, 0o700); err != nil {
		return fmt.Errorf("save suggestions: %w", err)
	}
	if err := durable.WriteFileAtomic(a.suggestionsFile(), b); err != nil {
		return fmt.Errorf("save suggestions %s: %w", a.suggestionsFile(), err)
	}
	return nil
}

// suggest holds a distilled add (or, with target, update) as a suggestion.
func (a *Agent) suggest(chatID string, proj *projectState, c candidate, target *shownMemory) {
	s := Suggestion{ID: memory.NewID(), ChatID: chatID, Scope: ScopeGlobal, Kind: c.Kind, Text: c.Text, Created: a.now()}
	switch {
	case target != nil:
		s.Scope, s.Dir, s.Replaces = target.ss.scope, target.ss.dir, target.e.ID
	case c.Scope == ScopeProject && proj != nil:
		s.Scope, s.Dir = ScopeProject, proj.dir
	}
	a.pend.mu.Lock()
	defer a.pend.mu.Unlock()
	a.loadLocked()
	for _, o := range a.pend.sugg {
		if o.Scope == s.Scope && o.Dir == s.Dir && sameText(o.Text, s.Text) {
			return // already suggested
		}
	}
	a.pend.sugg = append(a.pend.sugg, s)
	if err := a.saveLocked(); err != nil {
		a.emit(Notice{ChatID: chatID, Text: err.Error()})
	}
}

// Suggestions lists the held suggestions, oldest first.
func (a *Agent) Suggestions() []Suggestion {
	a.pend.mu.Lock()
	defer a.pend.mu.Unlock()
	a.loadLocked()
	return slices.Clone(a.pend.sugg)
}

// take removes a suggestion and returns it.
func (a *Agent) take(id string) (Suggestion, error) {
	a.pend.mu.Lock()
	defer a.pend.mu.Unlock()
	a.loadLocked()
	i := slices.IndexFunc(a.pend.sugg, func(s Suggestion) bool { return s.ID == id })
	if i < 0 {
		return Suggestion{}, fmt.Errorf("no memory suggestion %q", id)
	}
	s := a.pend.sugg[i]
	a.pend.sugg = slices.Delete(a.pend.sugg, i, i+1)
	if err := a.saveLocked(); err != nil {
		a.pend.sugg = slices.Insert(a.pend.sugg, i, s)
		return Suggestion{}, err
	}
	return s, nil
}

// KeepSuggestion stores a suggestion as a memory the person kept (Source
// user), with text if it is not empty (the person edited it), and removes
// it from the suggestions. One that replaces a memory supersedes it (the
// old version stays as history); if that memory is gone it is added. A
// text that looks like a secret is refused with memory.ErrSecret.
func (a *Agent) KeepSuggestion(id, text string) (memory.Entry, error) {
	a.pend.mu.Lock()
	a.loadLocked()
	i := slices.IndexFunc(a.pend.sugg, func(s Suggestion) bool { return s.ID == id })
	var s Suggestion
	if i >= 0 {
		s = a.pend.sugg[i]
	}
	a.pend.mu.Unlock()
	if i < 0 {
		return memory.Entry{}, fmt.Errorf("keep suggestion: no memory suggestion %q", id)
	}
	if strings.TrimSpace(text) != "" {
		s.Text = text
	}
	if what, ok := memory.Secret(s.Text); ok {
		return memory.Entry{}, fmt.Errorf("keep suggestion: %w (%s)", memory.ErrSecret, what)
	}
	st, err := a.Memory(s.Scope, s.Dir)
	if err != nil {
		return memory.Entry{}, fmt.Errorf("keep suggestion: %w", err)
	}
	e := memory.Entry{Kind: s.Kind, Text: s.Text, Source: memory.SourceUser}
	var kept memory.Entry
	if s.Replaces != "" {
		kept, err = st.Supersede(s.Replaces, e)
	}
	if s.Replaces == "" || errors.Is(err, memory.ErrNotFound) {
		kept, _, err = st.Add(e)
	}
	if err != nil {
		return memory.Entry{}, fmt.Errorf("keep suggestion: %w", err)
	}
	if _, err := a.take(id); err != nil {
		return kept, fmt.Errorf("keep suggestion: %w", err)
	}
	a.emit(SuggestionsChanged{ChatID: s.ChatID})
	return kept, nil
}

// DiscardSuggestion drops a suggestion.
func (a *Agent) DiscardSuggestion(id string) error {
	s, err := a.take(id)
	if err != nil {
		return fmt.Errorf("discard suggestion: %w", err)
	}
	a.emit(SuggestionsChanged{ChatID: s.ChatID})
	return nil
}

// propose holds a forget proposal (replacing one for the same memory).
func (a *Agent) propose(f Forgotten) {
	a.pend.mu.Lock()
	defer a.pend.mu.Unlock()
	a.pend.proposals = slices.DeleteFunc(a.pend.proposals, func(o Forgotten) bool { return sameMemory(o, f) })
	a.pend.proposals = append(a.pend.proposals, f)
}

func sameMemory(x, y Forgotten) bool {
	return x.Scope == y.Scope && x.Dir == y.Dir && x.Entry.ID == y.Entry.ID
}

// Proposals lists the pending forget proposals, oldest first.
func (a *Agent) Proposals() []Forgotten {
	a.pend.mu.Lock()
	defer a.pend.mu.Unlock()
	return slices.Clone(a.pend.proposals)
}

// dropProposal removes a pending proposal; false if there was none.
func (a *Agent) dropProposal(f Forgotten) bool {
	a.pend.mu.Lock()
	defer a.pend.mu.Unlock()
	n := len(a.pend.proposals)
	a.pend.proposals = slices.DeleteFunc(a.pend.proposals, func(o Forgotten) bool { return sameMemory(o, f) })
	return len(a.pend.proposals) < n
}

// AcceptForget carries out a forget proposal: the memory and its history
// are forgotten, their text removed from the file at once (UndoForget with
// f adds it again).
func (a *Agent) AcceptForget(f Forgotten) error {
	if !a.dropProposal(f) {
		return fmt.Errorf("forget memory %s: %w", f.Entry.ID, errNoProposal)
	}
	st, err := a.Memory(f.Scope, f.Dir)
	if err != nil {
		return fmt.Errorf("forget memory %s: %w", f.Entry.ID, err)
	}
	_, err = st.Forget(f.Entry.ID)
	return err
}

// DismissForget drops a forget proposal; the memory stays as it is.
func (a *Agent) DismissForget(f Forgotten) error {
	if !a.dropProposal(f) {
		return fmt.Errorf("keep memory %s: %w", f.Entry.ID, errNoProposal)
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
