// Package mcpserver serves Engram's memory over the Model Context Protocol,
// so that other assistants (Claude Desktop, Claude Code, Cursor, VS Code,
// Cherry Studio) search and keep the same memory as the app: the memory
// tools with the app's rules (package memtools), the pinned memories and
// the AGENTS.md files as resources, and a prompt that recalls the memories
// a question needs. The stores are the agent's, so the app and any number of
// servers on one memory file lose nothing (see package memory).
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/agent"
	"engram/agent/llm"
	"engram/agent/memtools"
	"engram/memory"
)

// Options are what one server serves.
type Options struct {
	// ProjectDir is a project folder whose memory is served beside the
	// global one, and whose AGENTS.md is a resource ("": none).
	ProjectDir string
	// ReadOnly offers only memory_search and memory_list.
	ReadOnly bool
	// Version is the server's version, as clients are told.
	Version string
}

// The URIs of the resources.
const (
	PinnedURI              = "engram://memory/pinned"
	GlobalInstructionsURI  = "engram://instructions/global"
	ProjectInstructionsURI = "engram://instructions/project"
)

// RecallPrompt is the name of the prompt that injects recalled memories.
const RecallPrompt = "recall_memories"

// New returns a server over the agent's stores for one client connection:
// the memories it may change are those it was shown in this connection.
func New(a *agent.Agent, opts Options) (*mcp.Server, error) {
	if opts.ProjectDir != "" {
		if _, err := a.ToolSession(opts.ProjectDir, nil); err != nil {
			return nil, fmt.Errorf("mcp server: %w", err)
		}
	}
	h := &handlers{a: a, opts: opts, shown: &shownSet{ids: map[string]bool{}}}
	s := mcp.NewServer(&mcp.Implementation{Name: "engram", Title: "Engram memory", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions})
	tools := []llm.Tool{toolDef(memtools.Search), memtools.ListDef}
	if !opts.ReadOnly {
		tools = append(tools, toolDef(memtools.Write), toolDef(memtools.Update), toolDef(memtools.Forget))
	}
	for _, t := range tools {
		s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters,
			Annotations: annotations(t.Name)}, h.tool(t.Name))
	}
	s.AddResource(&mcp.Resource{URI: PinnedURI, Name: "pinned-memories", Title: "Pinned memories",
		Description: "The memories the person pinned: Engram puts them in every conversation.",
		MIMEType:    "text/markdown"}, h.pinned)
	s.AddResource(&mcp.Resource{URI: GlobalInstructionsURI, Name: "global-agents-md", Title: "AGENTS.md (global)",
		Description: "The person's standing instructions for every conversation.", MIMEType: "text/markdown"},
		h.instructions)
	if opts.ProjectDir != "" {
		s.AddResource(&mcp.Resource{URI: ProjectInstructionsURI, Name: "project-agents-md", Title: "AGENTS.md (project)",
			Description: "The standing instructions of the project folder " + opts.ProjectDir + ".",
			MIMEType:    "text/markdown"}, h.instructions)
	}
	s.AddPrompt(&mcp.Prompt{Name: RecallPrompt, Title: "Recall memories",
		Description: "The question, preceded by the memories Engram recalls for it.",
		Arguments:   []*mcp.PromptArgument{{Name: "question", Description: "what to recall memories for", Required: true}}},
		h.recall)
	return s, nil
}

// instructions tell a client what the server is for.
const instructions = "Engram is the user's long-term memory, kept on their own disk. Search it (memory_search) " +
	"before answering anything personal; save what will matter later (memory_write: one short self-contained " +
	"sentence; never secrets); correct or forget only memories you were shown."

// toolDef is the app's definition of a memory tool.
func toolDef(name string) llm.Tool {
	for _, t := range memtools.Defs {
		if t.Name == name {
			return t
		}
	}
	panic("mcpserver: no memory tool " + name) // the names are memtools' own constants
}

// annotations tell clients which tools only read.
func annotations(name string) *mcp.ToolAnnotations {
	readOnly := name == memtools.Search || name == memtools.List
	destructive := name == memtools.Forget || name == memtools.Update
	return &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &destructive}
}

// handlers answer one connection's requests.
type handlers struct {
	a     *agent.Agent
	opts  Options
	shown *shownSet
}

// tool runs a memory tool; a refusal (a secret, memory switched off, an ID
// not shown) is a tool error the client's model reads.
func (h *handlers) tool(name string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s, err := h.a.ToolSession(h.opts.ProjectDir, h.shown)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s.Propose, s.Suggest = nil, nil // no person to ask here: a memory the person wrote is left alone
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		out, _, err := s.Run(name, string(args))
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
	}
}

// pinned reads the pinned memories, global first, as a Markdown list.
func (h *handlers) pinned(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var b strings.Builder
	for _, st := range h.stores() {
		for _, e := range st.store.List() {
			if e.Pinned {
				fmt.Fprintf(&b, "- (%s, %s) %s\n", st.scope, e.ID, memory.Defuse(e.Text))
			}
		}
	}
	if b.Len() == 0 {
		b.WriteString("No memory is pinned.\n")
	}
	return textResource(req.Params.URI, b.String()), nil
}

// instructions reads an AGENTS.md.
func (h *handlers) instructions(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	info := h.a.Instructions(h.opts.ProjectDir)
	path := info.Global.Path
	if req.Params.URI == ProjectInstructionsURI {
		path = info.Project.Path
	}
	text, err := h.a.ReadInstructions(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return textResource(req.Params.URI, text), nil
}

// recall is the question after the block of memories recalled for it, as
// the app injects them.
func (h *handlers) recall(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	q := strings.TrimSpace(req.Params.Arguments["question"])
	if q == "" {
		return nil, errors.New(`the argument "question" is required`)
	}
	s, err := h.a.ToolSession(h.opts.ProjectDir, h.shown)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	cfg := h.a.Config()
	var hits []memory.Hit
	for _, hit := range s.Recall(s.Stores(), q, cfg.RecallTopK) {
		h.shown.Add(hit.Entry.ID)
		hits = append(hits, hit.Hit)
	}
	text := q
	if block := memory.RenderBlock(hits, cfg.RecallBudget); block != "" {
		text = block + "\n\n" + q
	}
	return &mcp.GetPromptResult{Description: fmt.Sprintf("%d memories recalled", len(hits)),
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}

// scopedStore is a store with its scope.
type scopedStore struct {
	scope agent.Scope
	store *memory.Store
}

// stores are the served stores, global first; one that cannot be opened
// is left out (the tools say why).
func (h *handlers) stores() []scopedStore {
	s, err := h.a.ToolSession(h.opts.ProjectDir, h.shown)
	if err != nil {
		return nil
	}
	var out []scopedStore
	for _, t := range s.Stores() {
		out = append(out, scopedStore{scope: t.Scope, store: t.Store})
	}
	return out
}

func textResource(uri, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}
}

// shownSet is the memtools.Shown of one connection.
type shownSet struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (s *shownSet) Add(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.ids[id] = true
	}
}

func (s *shownSet) Has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}
