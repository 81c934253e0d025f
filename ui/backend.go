package ui

import (
	"context"

	"engram/agent"
	"engram/memory"
)

// Backend is what the window needs from the agent. *agent.Agent satisfies it;
// tests use a fake. Every method may do disk or network work, so the UI calls
// them off the UI goroutine, except Events, Config, ConfigSources, Chats,
// SearchChats and RecentProjects, which only read memory.
type Backend interface {
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
	Memory(scope agent.Scope, projectDir string) (*memory.Store, error)
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
