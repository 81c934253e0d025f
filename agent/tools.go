package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"kind":{"type":"string","enum":["preference","correction","lesson","fact"]},` +
			`"text":{"type":"string","description":"the memory, one self-contained sentence"},` +
			`"scope":{"type":"string","enum":["global","project"],"description":"project: only about the pinned project folder (default global)"}},` +
			`"required":["kind","text"]}`)},
	{Name: ToolMemorySearch, Description: "Search the saved memories. Returns the best matches with their IDs.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
	{Name: ToolMemoryUpdate, Description: "Replace the text of a saved memory, by ID.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},` +
			`"text":{"type":"string"}},"required":["id","text"]}`)},
	{Name: ToolMemoryForget, Description: "Delete a saved memory, by ID, when the user asks to forget it or it is wrong.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)},
}

// toolArgs are the arguments of any memory tool.
type toolArgs struct {
	Kind  string `json:"kind"`
	Text  string `json:"text"`
	Scope string `json:"scope"`
	Query string `json:"query"`
	ID    string `json:"id"`
}

// searchResults is how many memories memory_search returns at most.
const searchResults = 8

// runTool executes a tool call. The error, if any, goes back to the model.
func (a *Agent) runTool(proj *projectState, call llm.ToolCall) (string, error) {
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
		return a.toolWrite(proj, args)
	case ToolMemorySearch:
		return a.toolSearch(proj, args)
	case ToolMemoryUpdate:
		return a.toolUpdate(proj, args)
	case ToolMemoryForget:
		return a.toolForget(proj, args)
	}
	return "", fmt.Errorf("there is no tool %q; the tools are memory_write, memory_search, memory_update "+
		"and memory_forget", call.Name)
}

func (a *Agent) toolWrite(proj *projectState, args toolArgs) (string, error) {
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
	if !added {
		return fmt.Sprintf("Already remembered as %s (%s): %s", e.ID, e.Kind, e.Text), nil
	}
	return fmt.Sprintf("Saved memory %s (%s, %s).", e.ID, e.Kind, ss.scope), nil
}

func (a *Agent) toolSearch(proj *projectState, args toolArgs) (string, error) {
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
		fmt.Fprintf(&b, "- id=%s scope=%s kind=%s: %s\n", h.Entry.ID, h.Scope, h.Entry.Kind, h.Entry.Text)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func (a *Agent) toolUpdate(proj *projectState, args toolArgs) (string, error) {
	ss, err := a.storeOf(proj, args.ID)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(args.Text)
	if text == "" {
		return "", errors.New(`"text" is required; use memory_forget to delete a memory`)
	}
	e, err := ss.st.Update(args.ID, memory.Change{Text: &text})
	if err != nil {
		return "", fmt.Errorf("could not update memory %s: %w", args.ID, err)
	}
	return fmt.Sprintf("Updated memory %s: %s", e.ID, e.Text), nil
}

func (a *Agent) toolForget(proj *projectState, args toolArgs) (string, error) {
	ss, err := a.storeOf(proj, args.ID)
	if err != nil {
		return "", err
	}
	if err := ss.st.Remove(args.ID); err != nil {
		return "", fmt.Errorf("could not forget memory %s: %w", args.ID, err)
	}
	return fmt.Sprintf("Forgot memory %s.", args.ID), nil
}

// stores are the stores a turn sees: global, then the project's.
func (a *Agent) stores(proj *projectState) []*storeState {
	if proj == nil {
		return []*storeState{a.global}
	}
	return []*storeState{a.global, proj.store}
}

// storeOf finds the store that holds a live memory.
func (a *Agent) storeOf(proj *projectState, id string) (*storeState, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New(`"id" is required; find IDs with memory_search`)
	}
	for _, ss := range a.stores(proj) {
		if e, ok := ss.st.Get(id); ok && e.Live() {
			return ss, nil
		}
	}
	return nil, fmt.Errorf("no memory has the ID %q; find IDs with memory_search", id)
}
