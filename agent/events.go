package agent

import (
	"time"

	"engram/memory"
)

// Event is something the agent reports on its event channel, Events.
// Every event names the chat it belongs to ("" for events about files or
// settings). Delivery rules:
//
//   - every event is delivered, in the order it happened, except that
//     consecutive Delta events of a chat that the consumer has not yet
//     received are merged into one with the concatenated text, and so are
//     consecutive ReasoningDelta events: deltas are never dropped, only
//     coalesced when the consumer is slower than the stream (eventq.go);
//   - a turn's events come in the order TurnStarted, RecallDone, then Delta,
//     ReasoningDelta (between ThinkingStarted and ThinkingDone), ToolCall
//     and ToolResult as they happen, then TurnDone last; its Notices
//     (retries, compaction, a chat that could not be saved…) come between
//     TurnStarted and TurnDone; MemoriesSaved, MemoriesRevised,
//     SuggestionsChanged and the Notices of its consolidation (a memory
//     that looks like a secret, a memory you wrote that was updated) come
//     after its TurnDone (a memory tool's MemoriesRevised comes with its
//     ToolResult): they belong to the chat's last answer;
//   - MemoryChanged (a store changed, by the agent, the person or another
//     process), InstructionsChanged (an AGENTS.md was reloaded),
//     ChatChanged (another process wrote a chat) and SemanticChanged
//     (semantic recall's model changed) may come at any time;
//   - ChatTitled comes after the TurnDone of a chat's first turn, at most
//     once, and only when the model named the chat before the person
//     renamed it;
//   - the agent never blocks on the consumer (events queue without bound),
//     but the consumer should keep reading; after Close the channel is
//     closed and events not yet received may be lost.
//
// When TurnDone arrives, the chat accepts the next Send.
type Event interface {
	Chat() string
}

// TurnStarted opens a turn: the user's message has been recorded. Text is
// the message the turn answers. A turn of Send adds the user's message
// (UserID) and an answer (AnswerID) at the end of the chat; Resend first
// drops the messages from Replaces on (the edited message and those after
// it), Regenerate those from Replaces on (the answer and those after it) and
// adds no user message; Continue adds nothing: the deltas extend the answer
// Continues (= AnswerID).
type TurnStarted struct {
	ChatID    string
	Text      string
	UserID    string // the new user message, "" when the turn adds none
	AnswerID  string // the answer the turn writes
	Replaces  string // the first message the turn replaces, if any
	Continues string // the answer the turn continues, if any
}

// RecallDone carries the memories recalled for this turn (empty when nothing
// matched, Skipped when the chat's auto-recall is off) and the pinned
// memories, which are in the prompt of every turn (Score 0, no Terms).
type RecallDone struct {
	ChatID  string
	Hits    []RecalledHit
	Pinned  []RecalledHit
	Skipped bool
}

// Delta is a piece of the streamed answer.
type Delta struct {
	ChatID string
	Text   string
}

// ReasoningDelta is a piece of the model's reasoning (its thinking), which
// streams apart from the answer: it comes between ThinkingStarted and
// ThinkingDone, is kept in the chat as Message.Reasoning, and is never
// sent back to the model.
type ReasoningDelta struct {
	ChatID string
	Text   string
}

// ThinkingStarted reports that the model began to reason, at At (the
// first reasoning of a model call; a turn with tool calls may think before
// each call).
type ThinkingStarted struct {
	ChatID string
	At     time.Time
}

// ThinkingDone reports that the model stopped reasoning: its answer or a
// tool call began, or the call ended. Took is this stretch of thinking,
// Total all of the turn's so far ("Thought for 12 s").
type ThinkingDone struct {
	ChatID string
	Took   time.Duration
	Total  time.Duration
}

// ToolCall reports a tool the model called.
type ToolCall struct {
	ChatID string
	CallID string
	Name   string
	Args   string
}

// ToolResult reports a tool call's outcome; Err is set when the tool failed
// (the failure also goes back to the model).
type ToolResult struct {
	ChatID string
	CallID string
	Name   string
	Result string
	Err    error
}

// Notice is a non-fatal message for the person, such as "the model does not
// support tools; answered without memory tools": Text in English, Words
// the same as a key and its arguments (an empty Key for a notice that has
// only its Text, such as those of distill's suggestions).
type Notice struct {
	ChatID string
	Text   string
	Words  Words
}

// TurnDone closes a turn. Err is nil on success, a context error when it was
// cancelled, or an *Error with a reason people understand. Interrupted
// reports an answer that broke off (Err has CodeInterrupted or
// CodeTimeout): what arrived is kept in the chat, marked, and Retry asks
// again.
type TurnDone struct {
	ChatID      string
	Usage       Usage
	Err         error
	Cut         bool // the answer stopped at Config.MaxAnswerBytes or the model's output limit
	At          time.Time
	Interrupted bool
}

// MemoriesSaved reports the memories that distillation stored after a turn.
type MemoriesSaved struct {
	ChatID  string
	Scope   Scope
	Entries []memory.Entry
	Err     error
}

// MemoryChanged reports that a memory store changed: once per write of the
// app, and once per outside edit of its file (External, after the edit was
// merged). Err is the store's error state, if any.
type MemoryChanged struct {
	Scope    Scope
	Dir      string // the project folder for ScopeProject
	Err      error
	External bool // the file was changed outside this store (by hand, a sync tool, another process)
}

// ChatChanged reports that another process (engramctl chat, a second
// window, a sync tool) wrote a chat's file: a new chat, or new messages or
// a new title in one (already merged into what Chat returns).
type ChatChanged struct {
	ChatID string
}

// ChatTitled reports that the model named a chat after its first exchange:
// Title replaces the title made from the first message (already saved in
// what Chat returns).
type ChatTitled struct {
	ChatID string
	Title  string
}

// InstructionsChanged reports that an AGENTS.md was (re)loaded.
type InstructionsChanged struct {
	Path      string
	Found     bool
	Truncated bool
	Err       error
}

// Chat implements Event.
func (e TurnStarted) Chat() string { return e.ChatID }

// Chat implements Event.
func (e RecallDone) Chat() string { return e.ChatID }

// Chat implements Event.
func (e Delta) Chat() string { return e.ChatID }

// Chat implements Event.
func (e ReasoningDelta) Chat() string { return e.ChatID }

// Chat implements Event.
func (e ThinkingStarted) Chat() string { return e.ChatID }

// Chat implements Event.
func (e ThinkingDone) Chat() string { return e.ChatID }

// Chat implements Event.
func (e ToolCall) Chat() string { return e.ChatID }

// Chat implements Event.
func (e ToolResult) Chat() string { return e.ChatID }

// Chat implements Event.
func (e Notice) Chat() string { return e.ChatID }

// Chat implements Event.
func (e TurnDone) Chat() string { return e.ChatID }

// Chat implements Event.
func (e MemoriesSaved) Chat() string { return e.ChatID }

// Chat implements Event.
func (MemoryChanged) Chat() string { return "" }

// Chat implements Event.
func (InstructionsChanged) Chat() string { return "" }

// Chat implements Event.
func (e ChatChanged) Chat() string { return e.ChatID }

// Chat implements Event.
func (e ChatTitled) Chat() string { return e.ChatID }
