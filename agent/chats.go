package agent

import (
	"errors"
	"fmt"
	"os"
	"strings"

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

// Chats lists the chats, most recently updated first.
func (a *Agent) Chats() []ChatInfo { return a.chats.List() }

// NewChat creates an empty chat with the config's auto-recall default.
func (a *Agent) NewChat() (ChatInfo, error) {
	return a.chats.Create(a.Config().AutoRecall, "")
}

// NewTemporaryChat creates a chat that memory does not touch, as ChatGPT's
// temporary chat: no recall, no pinned memories in its prompt, no memory
// tools, nothing distilled or saved from it, and it is never written to a
// file, so it is gone after the app closes. (The tools of MCP servers are
// still offered.)
func (a *Agent) NewTemporaryChat() ChatInfo { return a.chats.CreateTemporary() }

// Chat returns a chat with its messages; the memories recalled for its
// answers are read from the stores (the chat file only refers to them).
func (a *Agent) Chat(id string) (Chat, error) {
	c, err := a.chats.Get(id)
	if err != nil {
		return c, err
	}
	return a.resolveRecalled(c), nil
}

// RenameChat sets a chat's title.
func (a *Agent) RenameChat(id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("rename chat: the title is empty")
	}
	return a.chats.Update(id, func(c *Chat) bool { c.Title = title; return true })
}

// DeleteChat cancels the chat's turn, if any, and deletes it.
func (a *Agent) DeleteChat(id string) error {
	a.Cancel(id)
	return a.chats.Remove(id)
}

// SetAutoRecall turns a chat's auto-recall on or off.
func (a *Agent) SetAutoRecall(id string, on bool) error {
	return a.chats.Update(id, func(c *Chat) bool { c.AutoRecall = on; return true })
}

// SetProject pins a project folder to a chat ("" unpins): its AGENTS.md
// joins the prompt and its memory store joins recall and the tools. Its
// AGENTS.md is followed from now on.
func (a *Agent) SetProject(id, dir string) error {
	if dir != "" {
		dir = cleanDir(dir)
		st, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("pin project: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("pin project: %s is not a folder", dir)
		}
	}
	if err := a.chats.Update(id, func(c *Chat) bool { c.Project = dir; return true }); err != nil {
		return err
	}
	if dir != "" {
		_, _ = a.pinned(dir) // only fails once closed
	}
	return nil
}

// RecentProjects lists the project folders of the chats, most recently used
// first.
func (a *Agent) RecentProjects() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range a.chats.List() {
		if c.Project != "" && !seen[c.Project] {
			seen[c.Project] = true
			out = append(out, c.Project)
		}
	}
	return out
}

// resolveRecalled fills the recalled (and pinned) memories of a chat's messages from
// the stores (their current version, history included); a memory that was
// forgotten keeps only its ID and kind.
func (a *Agent) resolveRecalled(c Chat) Chat {
	var proj *storeState
	if c.Project != "" {
		if p, err := a.pinned(c.Project); err == nil {
			p.mu.Lock()
			proj = p.store
			p.mu.Unlock()
		}
	}
	resolve := func(in []RecalledHit) []RecalledHit {
		if len(in) == 0 {
			return in
		}
		hits := make([]RecalledHit, len(in))
		for j, h := range in {
			ss := a.global
			if h.Scope == ScopeProject {
				ss = proj
			}
			if h.Entry.Text == "" && ss != nil {
				if e, ok := ss.st.Get(h.Entry.ID); ok && e.Deleted.IsZero() {
					h.Entry = e
				}
			}
			hits[j] = h
		}
		return hits
	}
	for i, m := range c.Messages {
		c.Messages[i].Recalled = resolve(m.Recalled)
		c.Messages[i].Pinned = resolve(m.Pinned)
	}
	return c
}
