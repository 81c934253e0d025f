// Package chat keeps Engram's chats on disk: the chat file format, one file
// per chat written through a locked merge so that several processes may write
// one chat at once, search over titles and messages, and the references a
// message keeps to the memories that shaped it. It knows nothing of turns or
// models.
package chat

import (
	"errors"
	"slices"
	"time"

	"engram/memory"
)

// The roles of chat messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleSummary marks a compaction summary: it stands for every message
	// before it when the chat is sent to the model (those stay in the chat
	// for people to read).
	RoleSummary = "summary"
)

// ErrNotFound is returned for an unknown chat ID.
var ErrNotFound = errors.New("chat not found")

// Info describes a chat without its messages.
type Info struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	AutoRecall bool      `json:"auto_recall"`
	Project    string    `json:"project,omitempty"` // pinned project folder
	// Capture overrides the capture setting for this chat ("" follows it).
	Capture CaptureMode `json:"capture,omitempty"`
	// Temporary is a chat that is never written to a file: it ends with
	// the process (see Store.CreateTemporary).
	Temporary bool `json:"-"`
}

// Chat is a chat with its messages, oldest first.
type Chat struct {
	Info
	Messages []Message `json:"messages"`
	// Branches are the parts of the chat that an edit or a regeneration
	// replaced, oldest first (see agent.Agent.Resend).
	Branches []Branch `json:"branches,omitempty"`
	// Deleted are the IDs of messages that the person deleted, so that
	// merging with another writer's copy does not bring them back.
	Deleted []string `json:"deleted,omitempty"`
	// Scrubbed are the IDs of forgotten memories whose text was taken out
	// of the chat's tool records (see Store.Scrub); never their text.
	Scrubbed []string `json:"scrubbed,omitempty"`
}

// Message is one message of a chat.
type Message struct {
	// ID names the message in its chat; writers of one chat merge by it.
	ID string `json:"id,omitempty"`
	// ReplyTo is the ID of the user message an answer replies to.
	ReplyTo  string       `json:"reply_to,omitempty"`
	Role     string       `json:"role"` // RoleUser, RoleAssistant or RoleSummary
	Text     string       `json:"text"`
	Time     time.Time    `json:"time"`
	Recalled []Hit        `json:"recalled,omitempty"` // the memories recalled for this answer
	Pinned   []Hit        `json:"pinned,omitempty"`   // the pinned memories in its prompt
	Tools    []ToolRecord `json:"tools,omitempty"`    // the tools this answer called
	Err      string       `json:"err,omitempty"`      // the turn failed: why
	// ErrKey and ErrArgs say Err as a wording key of the agent and its
	// arguments, so that a window in another language words a saved
	// error in it (no key: Err is all there is).
	ErrKey  string            `json:"err_key,omitempty"`
	ErrArgs map[string]string `json:"err_args,omitempty"`
	Stopped bool              `json:"stopped,omitempty"` // the turn was cancelled; Text is partial
	Usage   *Usage            `json:"usage,omitempty"`
	// Reasoning is the model's thinking before (and between) the parts of
	// the answer, shown apart; it is never sent back to the model, nor to
	// distillation or compaction. ThinkingTime is how long it took.
	Reasoning    string        `json:"reasoning,omitempty"`
	ThinkingTime time.Duration `json:"thinking_time,omitempty"` // nanoseconds in the file
	// Interrupted marks an answer that broke off (the stream ended before
	// the model finished, or went silent): Text is partial, it is not sent
	// back to the model nor distilled, and Retry asks again.
	Interrupted bool `json:"interrupted,omitempty"`
	// Cut marks an answer cut at Config.MaxAnswerBytes or at the model's
	// output limit; Continue may go on with it.
	Cut bool `json:"cut,omitempty"`
}

// ToolRecord is one tool call of an answer and its result.
type ToolRecord struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Args   string `json:"args"`
	Result string `json:"result"`
	Failed bool   `json:"failed,omitempty"`
}

// Branch is a part of a chat that an edit or a regeneration replaced: the
// messages from index At on, as they were. After is the ID of the message
// before them ("" for branches written before it was kept, and at the
// start of the chat). A branch that a version switch put back in the chat
// is Restored (see ShowVersion): its messages are in Messages again, and
// it stays in the file only so that merging with an older copy does not
// take them out again.
type Branch struct {
	At       int       `json:"at"`
	After    string    `json:"after,omitempty"`
	Time     time.Time `json:"time"`
	Messages []Message `json:"messages"`
	Restored bool      `json:"restored,omitempty"`
}

// Usage is the tokens a turn used, as the endpoint reported them.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Scope says which memory store an entry or hit belongs to.
type Scope string

// The memory scopes.
const (
	ScopeGlobal  Scope = "global"
	ScopeProject Scope = "project"
)

// Hit is a recalled memory with the store it came from. A chat file keeps
// only a reference to the memory (see MarshalJSON), never its text.
type Hit struct {
	memory.Hit
	Scope Scope
}

// CaptureMode says what becomes of the memories distilled after a turn.
type CaptureMode string

// The capture modes. The empty mode of a chat follows the setting; the
// empty setting is CaptureAuto.
const (
	CaptureAuto CaptureMode = "auto" // saved at once (consolidated with what is kept)
	CaptureAsk  CaptureMode = "ask"  // held as suggestions, outside recall, until the person keeps them
	CaptureOff  CaptureMode = "off"  // nothing is distilled
)

// BranchOff keeps the messages of c from index at on as a branch and
// removes them.
func (c *Chat) BranchOff(at int, now time.Time) {
	if at >= len(c.Messages) {
		return
	}
	old := append([]Message(nil), c.Messages[at:]...)
	after := ""
	if at > 0 {
		after = c.Messages[at-1].ID
	}
	c.Branches = append(slices.Clip(c.Branches), Branch{At: at, After: after, Time: now, Messages: old})
	c.Messages = slices.Clip(c.Messages[:at])
}
