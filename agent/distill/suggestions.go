package distill

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"engram/agent/chat"
	"engram/memory"
)

// Suggestion is a distilled memory held for the person (CaptureAsk): it is
// not in any store, so it is never recalled, until Keep.
// Replaces is the ID of the memory it would update, if any.
type Suggestion struct {
	ID       string      `json:"id"`
	ChatID   string      `json:"chat_id,omitempty"`
	Scope    chat.Scope  `json:"scope"`
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

// Chat names the chat the suggestions came from.
func (e SuggestionsChanged) Chat() string { return e.ChatID }

// loadLocked reads the suggestions file once; a missing file is none.
func (p *Pipeline) loadLocked() {
	if p.loaded {
		return
	}
	p.loaded = true
	var s []Suggestion
	if err := readJSONFile(p.cfg.SuggestionsFile, &s); err != nil {
		p.notice("", fmt.Sprintf("The memory suggestions in %s could not be read: %v", p.cfg.SuggestionsFile, err))
		return
	}
	p.sugg = s
}

func (p *Pipeline) saveLocked() error {
	return writeJSONFile(p.cfg.SuggestionsFile, "suggestions", p.sugg)
}

func (p *Pipeline) notice(chatID, text string) {
	if p.cfg.Notice != nil {
		p.cfg.Notice(chatID, text)
	}
}

// suggest holds a distilled add (or, with target, update) as a suggestion
// and reports whether it did: an add the store already holds (the rule Add
// dedupes by), or a text suggested already, is not held again.
func (p *Pipeline) suggest(t Turn, c candidate, target *Shown) bool {
	if target == nil {
		if _, dup := t.store(c.Scope).Store.Duplicate(c.Text); dup {
			return false
		}
	}
	s := Suggestion{ID: memory.NewID(), ChatID: t.ChatID, Scope: chat.ScopeGlobal, Kind: c.Kind, Text: c.Text,
		Created: p.cfg.Now()}
	switch {
	case target != nil:
		s.Scope, s.Dir, s.Replaces = target.Target.Scope, target.Target.Dir, target.Entry.ID
	case c.Scope == chat.ScopeProject && t.Project != nil:
		s.Scope, s.Dir = chat.ScopeProject, t.Project.Dir
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadLocked()
	for _, o := range p.sugg {
		if o.Scope == s.Scope && o.Dir == s.Dir && SameText(o.Text, s.Text) {
			return false // already suggested
		}
	}
	p.sugg = append(p.sugg, s)
	if err := p.saveLocked(); err != nil {
		p.notice(t.ChatID, err.Error())
	}
	return true
}

// SuggestUpdate holds a new text for a memory a person wrote, which a
// memory tool wanted to change, as a suggestion that would replace it: the
// person keeps theirs, takes the new one or edits it. An empty kind keeps
// the memory's.
func (p *Pipeline) SuggestUpdate(chatID string, target Shown, kind memory.Kind, text string) {
	if kind == "" {
		kind = target.Entry.Kind
	}
	p.suggest(Turn{ChatID: chatID}, candidate{Op: opUpdate, Kind: kind, Text: text}, &target)
}

// Suggestions lists the held suggestions, oldest first.
func (p *Pipeline) Suggestions() []Suggestion {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadLocked()
	return slices.Clone(p.sugg)
}

// Suggestion returns the held suggestion id.
func (p *Pipeline) Suggestion(id string) (Suggestion, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.indexLocked(id)
	if i < 0 {
		return Suggestion{}, false
	}
	return p.sugg[i], true
}

// indexLocked is the place of suggestion id among the held ones, or -1.
func (p *Pipeline) indexLocked(id string) int {
	p.loadLocked()
	return slices.IndexFunc(p.sugg, func(s Suggestion) bool { return s.ID == id })
}

// Take removes a suggestion and returns it.
func (p *Pipeline) Take(id string) (Suggestion, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.indexLocked(id)
	if i < 0 {
		return Suggestion{}, fmt.Errorf("no memory suggestion %q", id)
	}
	s := p.sugg[i]
	p.sugg = slices.Delete(p.sugg, i, i+1)
	if err := p.saveLocked(); err != nil {
		p.sugg = slices.Insert(p.sugg, i, s)
		return Suggestion{}, err
	}
	return s, nil
}

// Keep stores suggestion s as a memory the person kept (Source user), in
// the store open gives for its scope and folder, and removes it from the
// suggestions. One that replaces a memory
// supersedes it (the old version stays as history); if that memory is gone
// it is added. A text that looks like a secret is refused with
// memory.ErrSecret.
func (p *Pipeline) Keep(s Suggestion, open func(chat.Scope, string) (*memory.Store, error)) (memory.Entry, error) {
	if what, ok := memory.Secret(s.Text); ok {
		return memory.Entry{}, fmt.Errorf("%w (%s)", memory.ErrSecret, what)
	}
	st, err := open(s.Scope, s.Dir)
	if err != nil {
		return memory.Entry{}, err
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
		return memory.Entry{}, err
	}
	if _, err := p.Take(s.ID); err != nil {
		return kept, err
	}
	return kept, nil
}
