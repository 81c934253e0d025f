package agent

import (
	"errors"

	"engram/agent/chat"
)

// The chat types of package chat, under the names the agent's API uses:
// the chats it hands out, the hits its events carry, the capture modes.
type (
	ChatInfo    = chat.Info
	Chat        = chat.Chat
	Message     = chat.Message
	ToolRecord  = chat.ToolRecord
	Branch      = chat.Branch
	ChatMatch   = chat.Match
	RecalledHit = chat.Hit
	Scope       = chat.Scope
	Usage       = chat.Usage
	CaptureMode = chat.CaptureMode
)

// The roles, scopes and capture modes of package chat.
const (
	RoleUser      = chat.RoleUser
	RoleAssistant = chat.RoleAssistant
	RoleSummary   = chat.RoleSummary

	ScopeGlobal  = chat.ScopeGlobal
	ScopeProject = chat.ScopeProject

	CaptureAuto = chat.CaptureAuto
	CaptureAsk  = chat.CaptureAsk
	CaptureOff  = chat.CaptureOff
)

// ErrChatNotFound is returned for an unknown chat ID.
var ErrChatNotFound = chat.ErrNotFound

// ErrTurnRunning is returned by Send while the chat's previous turn runs.
var ErrTurnRunning = errors.New("a turn is already running in this chat")

// SearchChats returns up to limit titles and messages that contain every
// word of query (see chat.Store.Search).
func (a *Agent) SearchChats(query string, limit int) []ChatMatch { return a.chats.Search(query, limit) }
