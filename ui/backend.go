package ui

import (
	"context"

	"engram/agent"
	"engram/memory"
)

// Backend is what the window needs from the agent. AgentBackend wraps
// *agent.Agent as one; tests use a fake. Every method may do disk or
// network work, so the UI calls them off the UI goroutine, except Events,
// Config, ConfigSources, Chats, SearchChats and RecentProjects, which only
// read memory.
type Backend interface {
	ToolHost
	Events() <-chan agent.Event
	Send(ctx context.Context, chatID, text string) error
	// The message actions (see agent.Agent.Resend): like Send, they
	// start a turn and return at once.
	Resend(ctx context.Context, chatID, msgID, text string) error
	Regenerate(ctx context.Context, chatID, msgID string) error
	Continue(ctx context.Context, chatID, msgID string) error
	DeleteMessage(chatID, msgID string) error
	// SearchChats finds query in the chats' titles and messages.
	SearchChats(query string, limit int) []ChatMatch
	Cancel(chatID string)
	Chats() []ChatInfo
	NewChat() (ChatInfo, error)
	Chat(id string) (Chat, error)
	RenameChat(id, title string) error
	DeleteChat(id string) error
	SetAutoRecall(id string, on bool) error
	SetProject(id, dir string) error
	// Memory opens a memory store. Every change of it, the window's own
	// included, is reported as a MemoryChanged event: the inspector
	// reloads on those alone.
	Memory(scope agent.Scope, projectDir string) (MemoryStore, error)
	Config() agent.Config
	SetConfig(c agent.Config) error
	Models(ctx context.Context) ([]string, error)
	// ModelsAt lists the models of an endpoint before it is saved.
	ModelsAt(ctx context.Context, baseURL, apiKey string) ([]string, error)
	// ConfigSources says which settings come from the environment or
	// were detected.
	ConfigSources() agent.ConfigSources
	Instructions(projectDir string) InstructionsInfo
	// ReadInstructions and SaveInstructions read and replace an AGENTS.md
	// that Instructions reported, for the editor (see
	// agent.Agent.SaveInstructions).
	ReadInstructions(path string) (string, error)
	SaveInstructions(path, text string) error
	RecentProjects() []string
}

// The agent's chat types, under short names.
type (
	ChatInfo         = agent.ChatInfo
	Chat             = agent.Chat
	Message          = agent.Message
	ToolRecord       = agent.ToolRecord
	InstructionsInfo = agent.InstructionsInfo
	ChatMatch        = agent.ChatMatch
)

// MemoryStore is what the window needs of a memory store (the inspector
// lists, searches and edits it); *memory.Store satisfies it. The window
// calls its methods off the UI goroutine, the writing ones in order.
type MemoryStore interface {
	Path() string
	Err() error
	List() []memory.Entry
	Add(e memory.Entry) (memory.Entry, bool, error)
	Update(id string, c memory.Change) (memory.Entry, error)
	Remove(id string) error
	RemoveAll(ids []string) ([]string, error)
	Restore(id string) error
	Trash() ([]memory.Trashed, error)
	EmptyTrash() (int, error)
	Search(query string, k int) []memory.Hit
	History(id string) []memory.Entry
	Len() int
	Repair() (memory.RepairReport, error)
}

// AgentBackend is the agent as the window's Backend: *agent.Agent, with its
// memory stores handed to the window as MemoryStores.
type AgentBackend struct{ *agent.Agent }

// Memory is the agent's memory store of scope (and project folder
// projectDir).
func (b AgentBackend) Memory(scope agent.Scope, projectDir string) (MemoryStore, error) {
	st, err := b.Agent.Memory(scope, projectDir)
	if st == nil { // a nil store is a nil MemoryStore, not one holding nil
		return nil, err
	}
	return st, err
}

var _ Backend = AgentBackend{}
