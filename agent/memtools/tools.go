// Package memtools holds the memory tools a model calls — memory_write,
// memory_search, memory_update and memory_forget, and memory_list for
// clients outside the app's chats — with their schemas and their rules:
// nothing secret is saved, nothing is written where capture is off, only
// memories the model was shown may change, and a memory a person wrote is
// only proposed for forgetting.
// They work on the stores of one Session and return what changed, for the
// host to report.
package memtools

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"engram/agent/chat"
	"engram/agent/distill"
	"engram/agent/llm"
	"engram/memory"
)

// The memory tools' names.
const (
	Write  = "memory_write"
	Search = "memory_search"
	Update = "memory_update"
	Forget = "memory_forget"
	List   = "memory_list"
)

// Defs are the memory tools as they are offered to a model.
var Defs = []llm.Tool{
	{Name: Write, Description: "Save a memory that will matter in future conversations: a preference, " +
		"a correction, a lesson or a fact. One short self-contained sentence.",
		Parameters: object(map[string]schema{
			"kind": {Type: "string", Enum: kindNames()},
			"text": {Type: "string", Description: "the memory, one self-contained sentence"},
			"scope": {Type: "string", Enum: []string{string(chat.ScopeGlobal), string(chat.ScopeProject)},
				Description: "project: only about the pinned project folder (default global)"},
		}, "kind", "text")},
	{Name: Search, Description: "Search the saved memories. Returns the best matches, one JSON object per line: id, scope, kind, date and text.",
		Parameters: object(map[string]schema{"query": {Type: "string"}}, "query")},
	{Name: Update, Description: "Replace a saved memory with a corrected version, by the ID it was " +
		"shown with; the old version is kept as history.",
		Parameters: object(map[string]schema{"id": {Type: "string"}, "text": {Type: "string"}}, "id", "text")},
	{Name: Forget, Description: "Forget a saved memory, by the ID it was shown with, when the user asks " +
		"to forget it or it is no longer true. A memory the user wrote is only proposed for forgetting; the user decides.",
		Parameters: object(map[string]schema{"id": {Type: "string"}, "reason": {Type: "string"}}, "id")},
}

// ListDef is memory_list, offered to clients that have no recall of their
// own injected into the prompt (the MCP server), not to the app's chats.
var ListDef = llm.Tool{Name: List, Description: "List the saved memories, newest first, one JSON object per " +
	"line: id, scope, kind, date, pinned and text.",
	Parameters: object(map[string]schema{
		"scope":  {Type: "string", Enum: []string{string(chat.ScopeGlobal), string(chat.ScopeProject)}},
		"pinned": {Type: "boolean", Description: "only the pinned memories"},
		"limit":  {Type: "integer", Description: "at most this many (default 50)"},
	})}

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
	Pinned bool   `json:"pinned"`
	Limit  int    `json:"limit"`
}

// searchResults is how many memories memory_search returns at most.
const searchResults = 8

// Shown is the set of memory IDs shown to the model in one conversation:
// recalled into its prompt, found by memory_search or written by
// memory_write. The model may only update or forget those (and pinned
// memories, which are in every prompt).
type Shown interface {
	Add(ids ...string)
	Has(id string) bool
}

// Session is one conversation's access to memory through the tools.
type Session struct {
	Global  distill.Target
	Project *distill.Target // nil without a pinned project
	Shown   Shown
	// Recall returns the best k hits for query over the stores, by a score
	// comparable across stores.
	Recall func(stores []distill.Target, query string, k int) []chat.Hit
	// Propose holds a forget proposal for the person; nil where no person
	// can be asked (a memory the person wrote is then left alone).
	Propose func(distill.Forgotten)
	// Suggest holds a new text for a memory the person wrote, for them to
	// take or leave; nil where no person can be asked.
	Suggest func(target distill.Shown, kind memory.Kind, text string)
	// CaptureOff says the person switched memory off for this
	// conversation: memory_write and memory_update save nothing.
	CaptureOff bool
}

// Run executes a tool call: its result for the model, what it changed
// besides adding (for the host to report), or an error, which also goes
// back to the model.
func (s Session) Run(name, rawArgs string) (string, distill.MemoriesRevised, error) {
	var args toolArgs
	raw := strings.TrimSpace(rawArgs)
	if raw == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return "", distill.MemoriesRevised{}, fmt.Errorf("the arguments of %s are not valid: %v", name, err)
	}
	var rv distill.MemoriesRevised
	var out string
	var err error
	switch name {
	case Write:
		out, err = s.write(args)
	case Search:
		out, err = s.search(args)
	case Update:
		out, rv, err = s.update(args)
	case Forget:
		out, rv, err = s.forget(args)
	case List:
		out, err = s.list(args)
	default:
		err = fmt.Errorf("there is no tool %q; the tools are memory_write, memory_search, memory_update "+
			"and memory_forget", name)
	}
	return out, rv, err
}

func (s Session) write(args toolArgs) (string, error) {
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
	if err := s.refuseCapture(); err != nil {
		return "", err
	}
	if err := refuseSecret(args.Text); err != nil {
		return "", err
	}
	t := s.Global
	switch strings.ToLower(strings.TrimSpace(args.Scope)) {
	case "", string(chat.ScopeGlobal):
	case string(chat.ScopeProject):
		if s.Project == nil {
			return "", errors.New(`no project folder is pinned to this chat; use scope "global"`)
		}
		t = *s.Project
	default:
		return "", fmt.Errorf(`unknown scope %q: use "global" or "project"`, args.Scope)
	}
	e, added, err := t.Store.Add(memory.Entry{Kind: kind, Text: strings.TrimSpace(args.Text), Source: memory.SourceTool})
	if err != nil {
		return "", fmt.Errorf("could not save the memory: %w", err)
	}
	s.Shown.Add(e.ID)
	if !added {
		return fmt.Sprintf("Already remembered as %s (%s): %s", e.ID, e.Kind, e.Text), nil
	}
	return fmt.Sprintf("Saved memory %s (%s, %s).", e.ID, e.Kind, t.Scope), nil
}

func (s Session) search(args toolArgs) (string, error) {
	q := strings.TrimSpace(args.Query)
	if q == "" {
		return "", errors.New(`"query" is required`)
	}
	hits := s.Recall(s.Stores(), q, searchResults)
	if len(hits) == 0 {
		return "No memories match.", nil
	}
	lines := make([]resultLine, len(hits))
	for i, h := range hits {
		lines[i] = line(h.Entry, h.Scope)
		lines[i].Score, lines[i].Matched = float64(int(h.Score*1000))/1000, h.Terms
	}
	return s.results(lines)
}

// listLimit is how many memories memory_list returns unless told.
const listLimit = 50

// list lists the live memories of the stores, newest first.
func (s Session) list(args toolArgs) (string, error) {
	stores := s.Stores()
	switch strings.ToLower(strings.TrimSpace(args.Scope)) {
	case "":
	case string(chat.ScopeGlobal):
		stores = stores[:1]
	case string(chat.ScopeProject):
		if s.Project == nil {
			return "", errors.New(`no project folder is pinned; use scope "global"`)
		}
		stores = []distill.Target{*s.Project}
	default:
		return "", fmt.Errorf(`unknown scope %q: use "global" or "project"`, args.Scope)
	}
	var hits []chat.Hit
	for _, t := range stores {
		for _, e := range t.Store.List() {
			if !args.Pinned || e.Pinned {
				hits = append(hits, chat.Hit{Hit: memory.Hit{Entry: e}, Scope: t.Scope})
			}
		}
	}
	if len(hits) == 0 {
		return "No memories.", nil
	}
	sort.SliceStable(hits, func(i, j int) bool {
		return memory.Confirmed(hits[i].Entry).After(memory.Confirmed(hits[j].Entry))
	})
	limit := args.Limit
	if limit <= 0 {
		limit = listLimit
	}
	lines := make([]resultLine, min(limit, len(hits)))
	for i := range lines {
		lines[i] = line(hits[i].Entry, hits[i].Scope)
	}
	return s.results(lines)
}

// results renders result lines, one JSON object each, and marks their
// memories shown.
func (s Session) results(lines []resultLine) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		s.Shown.Add(l.ID)
		if err := enc.Encode(l); err != nil {
			return "", fmt.Errorf("could not write the results: %w", err)
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// resultLine is one line of memory_search's or memory_list's result: a
// JSON object, so that no memory's text can pass for another result or
// for the tool's own words. A search adds its score and the words that
// matched.
type resultLine struct {
	ID      string      `json:"id"`
	Scope   chat.Scope  `json:"scope"`
	Kind    memory.Kind `json:"kind"`
	Date    string      `json:"date"`
	Pinned  bool        `json:"pinned,omitempty"`
	Score   float64     `json:"score,omitempty"`
	Matched []string    `json:"matched,omitempty"`
	Text    string      `json:"text"`
}

// line is the result line of a memory, its text defused.
func line(e memory.Entry, scope chat.Scope) resultLine {
	return resultLine{ID: e.ID, Scope: scope, Kind: e.Kind, Date: memory.Confirmed(e).UTC().Format(time.DateOnly),
		Pinned: e.Pinned, Text: memory.Defuse(e.Text)}
}

// update replaces a memory the model was shown by a new version (a
// supersede: the old stays as history); for a memory the person wrote,
// kept or pinned the new text is only suggested, and the person decides.
func (s Session) update(args toolArgs) (string, distill.MemoriesRevised, error) {
	var none distill.MemoriesRevised
	target, err := s.shownTarget(args.ID)
	if err != nil {
		return "", none, err
	}
	text := strings.TrimSpace(args.Text)
	if text == "" {
		return "", none, errors.New(`"text" is required; use memory_forget to delete a memory`)
	}
	if err := s.refuseCapture(); err != nil {
		return "", none, err
	}
	if err := refuseSecret(text); err != nil {
		return "", none, err
	}
	if distill.SameText(target.Entry.Text, text) {
		return fmt.Sprintf("Memory %s already says that; nothing changed.", target.Entry.ID), none, nil
	}
	var kind memory.Kind
	if args.Kind != "" {
		if kind, err = memory.ParseKind(args.Kind); err != nil {
			return "", none, err
		}
	}
	if distill.Personal(target.Entry) {
		if s.Suggest == nil {
			return fmt.Sprintf("Memory %s was written by the user, so it is not changed: only the user can change "+
				"it, in Engram.", target.Entry.ID), none, nil
		}
		s.Suggest(target, kind, text)
		return fmt.Sprintf("Memory %s was written by the user, so it is not changed yet: the new text was shown "+
			"to the user, who decides.", target.Entry.ID), none, nil
	}
	rev, err := distill.Supersede(target, kind, text, memory.SourceTool)
	if err != nil {
		return "", none, fmt.Errorf("could not update memory %s: %w", args.ID, err)
	}
	s.Shown.Add(rev.New.ID)
	return fmt.Sprintf("Updated memory %s: it is now %s (the old version is kept as history): %s",
		rev.Old.ID, rev.New.ID, rev.New.Text), distill.MemoriesRevised{Updated: []distill.Revision{rev}}, nil
}

// forget forgets a memory the model was shown; one the person wrote,
// kept or pinned is only proposed for forgetting, and the person decides.
func (s Session) forget(args toolArgs) (string, distill.MemoriesRevised, error) {
	target, err := s.shownTarget(args.ID)
	if err != nil {
		return "", distill.MemoriesRevised{}, err
	}
	f := distill.Forgotten{Scope: target.Target.Scope, Dir: target.Target.Dir, Entry: target.Entry,
		Reason: distill.OneLine(args.Reason)}
	if distill.Personal(target.Entry) && s.Propose == nil {
		return fmt.Sprintf("Memory %s was written by the user, so it is not forgotten: only the user can forget "+
			"it, in Engram.", target.Entry.ID), distill.MemoriesRevised{}, nil
	}
	if distill.Personal(target.Entry) {
		s.Propose(f)
		return fmt.Sprintf("Memory %s was written by the user, so it is not forgotten yet: the user was asked "+
			"to confirm.", target.Entry.ID), distill.MemoriesRevised{Proposed: []distill.Forgotten{f}}, nil
	}
	if _, err := distill.Forget(target.Target, target.Entry.ID); err != nil {
		return "", distill.MemoriesRevised{}, fmt.Errorf("could not forget memory %s: %w", args.ID, err)
	}
	return fmt.Sprintf("Forgot memory %s.", args.ID), distill.MemoriesRevised{Forgotten: []distill.Forgotten{f}}, nil
}

// errCaptureOff is the answer of a write where the person switched memory
// off.
var errCaptureOff = errors.New("memory is switched off for this conversation, so nothing was saved; " +
	"tell the user they can save it themselves if they want it kept")

// refuseCapture refuses a write where capture is off.
func (s Session) refuseCapture() error {
	if s.CaptureOff {
		return errCaptureOff
	}
	return nil
}

// refuseSecret is the tools' answer to a text that looks like a secret.
func refuseSecret(text string) error {
	if what, ok := memory.Secret(text); ok {
		return fmt.Errorf("%w (%s). Tell the user it was not saved; do not repeat it", memory.ErrSecret, what)
	}
	return nil
}

// shownTarget finds the live memory id names, which must be one the model
// was shown in this conversation (recalled, pinned, found or written).
func (s Session) shownTarget(id string) (distill.Shown, error) {
	id = strings.TrimSpace(id)
	t, err := s.storeOf(id)
	if err != nil {
		return distill.Shown{}, err
	}
	e, _ := t.Store.Get(id)
	if !s.Shown.Has(id) && !e.Pinned {
		return distill.Shown{}, fmt.Errorf("memory %s was not shown to you in this chat; find it with memory_search "+
			"first", id)
	}
	return distill.Shown{Target: t, Entry: e}, nil
}

// Stores are the stores the conversation sees: global, then the project's.
func (s Session) Stores() []distill.Target {
	if s.Project == nil {
		return []distill.Target{s.Global}
	}
	return []distill.Target{s.Global, *s.Project}
}

// storeOf finds the store that holds a live memory.
func (s Session) storeOf(id string) (distill.Target, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return distill.Target{}, errors.New(`"id" is required; find IDs with memory_search`)
	}
	for _, t := range s.Stores() {
		if e, ok := t.Store.Get(id); ok && e.Live() {
			return t, nil
		}
	}
	return distill.Target{}, fmt.Errorf("no memory has the ID %q; find IDs with memory_search", id)
}
