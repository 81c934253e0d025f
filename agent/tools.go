package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"engram/agent/distill"
	"engram/agent/llm"
	"engram/memory"
)

// The memory tools.
const (
	ToolMemoryWrite  = "memory_write"
	ToolMemorySearch = "memory_search"
	ToolMemoryUpdate = "memory_update"
	ToolMemoryForget = "memory_forget"
)

// toolDefs are offered to the model on every step but the last.
var toolDefs = []llm.Tool{
	{Name: ToolMemoryWrite, Description: "Save a memory that will matter in future conversations: a preference, " +
		"a correction, a lesson or a fact. One short self-contained sentence.",
		Parameters: object(map[string]schema{
			"kind": {Type: "string", Enum: kindNames()},
			"text": {Type: "string", Description: "the memory, one self-contained sentence"},
			"scope": {Type: "string", Enum: []string{string(ScopeGlobal), string(ScopeProject)},
				Description: "project: only about the pinned project folder (default global)"},
		}, "kind", "text")},
	{Name: ToolMemorySearch, Description: "Search the saved memories. Returns the best matches with their IDs.",
		Parameters: object(map[string]schema{"query": {Type: "string"}}, "query")},
	{Name: ToolMemoryUpdate, Description: "Replace a saved memory with a corrected version, by the ID it was " +
		"shown with; the old version is kept as history.",
		Parameters: object(map[string]schema{"id": {Type: "string"}, "text": {Type: "string"}}, "id", "text")},
	{Name: ToolMemoryForget, Description: "Forget a saved memory, by the ID it was shown with, when the user asks " +
		"to forget it or it is no longer true. A memory the user wrote is only proposed for forgetting; the user decides.",
		Parameters: object(map[string]schema{"id": {Type: "string"}, "reason": {Type: "string"}}, "id")},
}

// schema is the part of JSON Schema that the tools' arguments use.
type schema struct {
	Type        string            `json:"type"`
	Enum        []string          `json:"enum,omitempty"`
	Description string            `json:"description,omitempty"`
	Properties  map[string]schema `json:"properties,omitempty"`
	Required    []string          `json:"required,omitempty"`
}

// object is the JSON Schema of an object with the given properties, of
// which those named are required.
func object(props map[string]schema, required ...string) json.RawMessage {
	b, err := json.Marshal(schema{Type: "object", Properties: props, Required: required})
	if err != nil {
		panic(fmt.Sprintf("tool schema: %v", err)) // strings, slices and maps of them always marshal
	}
	return b
}

// kindNames are the memory kinds as memory_write's schema lists them.
func kindNames() []string {
	names := make([]string, len(memory.Kinds))
	for i, k := range memory.Kinds {
		names[i] = string(k)
	}
	return names
}

// toolArgs are the arguments of any memory tool.
type toolArgs struct {
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Scope  string `json:"scope"`
	Query  string `json:"query"`
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// searchResults is how many memories memory_search returns at most.
const searchResults = 8

// runTool executes a tool call of a turn. The error, if any, goes back to
// the model.
func (a *Agent) runTool(ts *turnState, call llm.ToolCall) (string, error) {
	proj := ts.project
	var args toolArgs
	raw := strings.TrimSpace(call.Args)
	if raw == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return "", fmt.Errorf("the arguments of %s are not valid: %v", call.Name, err)
	}
	switch call.Name {
	case ToolMemoryWrite:
		return a.toolWrite(ts.chatID, proj, args)
	case ToolMemorySearch:
		return a.toolSearch(ts.chatID, proj, args)
	case ToolMemoryUpdate:
		return a.toolUpdate(ts.chatID, proj, args)
	case ToolMemoryForget:
		return a.toolForget(ts.chatID, proj, args)
	}
	return "", fmt.Errorf("there is no tool %q; the tools are memory_write, memory_search, memory_update "+
		"and memory_forget", call.Name)
}

func (a *Agent) toolWrite(chatID string, proj *projectState, args toolArgs) (string, error) {
	if args.Kind == "" {
		return "", errors.New(`"kind" is required: preference, correction, lesson or fact`)
	}
	kind, err := memory.ParseKind(args.Kind)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(args.Text) == "" {
		return "", errors.New(`"text" is required`)
	}
	if err := refuseSecret(args.Text); err != nil {
		return "", err
	}
	ss := a.global
	switch strings.ToLower(strings.TrimSpace(args.Scope)) {
	case "", string(ScopeGlobal):
	case string(ScopeProject):
		if proj == nil {
			return "", errors.New(`no project folder is pinned to this chat; use scope "global"`)
		}
		ss = proj.store
	default:
		return "", fmt.Errorf(`unknown scope %q: use "global" or "project"`, args.Scope)
	}
	e, added, err := ss.st.Add(memory.Entry{Kind: kind, Text: strings.TrimSpace(args.Text), Source: memory.SourceTool})
	if err != nil {
		return "", fmt.Errorf("could not save the memory: %w", err)
	}
	a.seen.add(chatID, e.ID)
	if !added {
		return fmt.Sprintf("Already remembered as %s (%s): %s", e.ID, e.Kind, e.Text), nil
	}
	return fmt.Sprintf("Saved memory %s (%s, %s).", e.ID, e.Kind, ss.scope), nil
}

func (a *Agent) toolSearch(chatID string, proj *projectState, args toolArgs) (string, error) {
	q := strings.TrimSpace(args.Query)
	if q == "" {
		return "", errors.New(`"query" is required`)
	}
	hits := bestHits(a.stores(proj), q, nil, searchResults, false)
	if len(hits) == 0 {
		return "No memories match.", nil
	}
	var b strings.Builder
	for _, h := range hits {
		a.seen.add(chatID, h.Entry.ID)
		fmt.Fprintf(&b, "- id=%s scope=%s kind=%s date=%s: %s\n", h.Entry.ID, h.Scope, h.Entry.Kind,
			memory.Confirmed(h.Entry).UTC().Format(time.DateOnly), h.Entry.Text)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// toolUpdate replaces a memory the model was shown by a new version (a
// supersede: the old stays as history). Updating a memory the person
// wrote, kept or pinned also tells the person.
func (a *Agent) toolUpdate(chatID string, proj *projectState, args toolArgs) (string, error) {
	target, err := a.shownTarget(chatID, proj, args.ID)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(args.Text)
	if text == "" {
		return "", errors.New(`"text" is required; use memory_forget to delete a memory`)
	}
	if err := refuseSecret(text); err != nil {
		return "", err
	}
	if distill.SameText(target.Entry.Text, text) {
		return fmt.Sprintf("Memory %s already says that; nothing changed.", target.Entry.ID), nil
	}
	var kind memory.Kind
	if args.Kind != "" {
		if kind, err = memory.ParseKind(args.Kind); err != nil {
			return "", err
		}
	}
	rev, err := distill.Supersede(target, kind, text, memory.SourceTool)
	if err != nil {
		return "", fmt.Errorf("could not update memory %s: %w", args.ID, err)
	}
	a.seen.add(chatID, rev.New.ID)
	a.report(chatID, distill.Outcome{Revised: MemoriesRevised{ChatID: chatID, Updated: []Revision{rev}}})
	return fmt.Sprintf("Updated memory %s: it is now %s (the old version is kept as history): %s",
		rev.Old.ID, rev.New.ID, rev.New.Text), nil
}

// toolForget forgets a memory the model was shown; one the person wrote,
// kept or pinned is only proposed for forgetting, and the person decides.
func (a *Agent) toolForget(chatID string, proj *projectState, args toolArgs) (string, error) {
	target, err := a.shownTarget(chatID, proj, args.ID)
	if err != nil {
		return "", err
	}
	f := Forgotten{Scope: target.Target.Scope, Dir: target.Target.Dir, Entry: target.Entry,
		Reason: distill.OneLine(args.Reason)}
	if distill.Personal(target.Entry) {
		a.pipe.Propose(f)
		a.report(chatID, distill.Outcome{Revised: MemoriesRevised{ChatID: chatID, Proposed: []Forgotten{f}}})
		return fmt.Sprintf("Memory %s was written by the user, so it is not forgotten yet: the user was asked "+
			"to confirm.", target.Entry.ID), nil
	}
	if _, err := target.Target.Store.Forget(target.Entry.ID); err != nil {
		return "", fmt.Errorf("could not forget memory %s: %w", args.ID, err)
	}
	a.report(chatID, distill.Outcome{Revised: MemoriesRevised{ChatID: chatID, Forgotten: []Forgotten{f}}})
	return fmt.Sprintf("Forgot memory %s.", args.ID), nil
}

// refuseSecret is the tools' answer to a text that looks like a secret.
func refuseSecret(text string) error {
	if what, ok := memory.Secret(text); ok {
		return fmt.Errorf("%w (%s). Tell the user it was not saved; do not repeat it", memory.ErrSecret, what)
	}
	return nil
}

// shownTarget finds the live memory id names, which must be one the model
// was shown in this chat (recalled, pinned, found or written).
func (a *Agent) shownTarget(chatID string, proj *projectState, id string) (distill.Shown, error) {
	id = strings.TrimSpace(id)
	t, err := a.storeOf(proj, id)
	if err != nil {
		return distill.Shown{}, err
	}
	e, _ := t.Store.Get(id)
	if !a.seen.has(chatID, id) && !e.Pinned {
		return distill.Shown{}, fmt.Errorf("memory %s was not shown to you in this chat; find it with memory_search "+
			"first", id)
	}
	return distill.Shown{Target: t, Entry: e}, nil
}

// seenIDs are the memory IDs shown to the model, by chat: recalled into
// its prompt, found by memory_search or written by memory_write. The model
// may only update or forget those.
type seenIDs struct {
	mu  sync.Mutex
	ids map[string]map[string]bool
}

func (s *seenIDs) add(chatID string, ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]map[string]bool{}
	}
	if s.ids[chatID] == nil {
		s.ids[chatID] = map[string]bool{}
	}
	for _, id := range ids {
		s.ids[chatID][id] = true
	}
}

func (s *seenIDs) has(chatID, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[chatID][id]
}

// stores are the stores a turn sees: global, then the project's.
func (a *Agent) stores(proj *projectState) []distill.Target {
	if proj == nil {
		return []distill.Target{a.global.target()}
	}
	return []distill.Target{a.global.target(), proj.store.target()}
}

// storeOf finds the store that holds a live memory.
func (a *Agent) storeOf(proj *projectState, id string) (distill.Target, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return distill.Target{}, errors.New(`"id" is required; find IDs with memory_search`)
	}
	for _, t := range a.stores(proj) {
		if e, ok := t.Store.Get(id); ok && e.Live() {
			return t, nil
		}
	}
	return distill.Target{}, fmt.Errorf("no memory has the ID %q; find IDs with memory_search", id)
}
