// Package llm is the vocabulary of the provider seam: the Completer
// interface the agent's turn loop calls, and the plain types a completion
// is made of (Request, Message, ToolCall, Tool, Reply, Usage, StatusError).
//
// It sits apart from package agent so that both sides can import it: agent
// consumes a Completer, and each provider adapter (one sub-package per
// outside dependency, such as llm/openai over go-openai) implements it and
// says so with a compile-time assertion, while agent can still default to
// an adapter without an import cycle. Tests of the turn loop implement
// Completer with a script and need no HTTP.
//
// It imports only the standard library: no provider SDK, nothing of agent,
// memory or any UI.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Completer is the provider seam: one streaming chat completion, and the
// list of models.
type Completer interface {
	// Complete streams one completion. onDelta, if not nil, is called with
	// each piece of text or reasoning as it arrives, on the calling
	// goroutine. The reply holds the whole text, reasoning and tool calls,
	// assembled; after a failure it holds what arrived before it. An error
	// answer of the endpoint is, or wraps, a *StatusError; a stream that
	// broke off wraps ErrInterrupted, one with nothing in it ErrEmpty, and
	// one ended for silence is, or wraps, a *TimeoutError.
	Complete(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error)
	// Models lists the model IDs the endpoint offers.
	Models(ctx context.Context) ([]string, error)
}

// Endpoint is where a Completer reaches the model, and the limits it
// holds the endpoint's streams to.
type Endpoint struct {
	BaseURL string // ".../v1"
	APIKey  string // may be empty
	// FirstByteTimeout ends a request whose answer has not sent a byte
	// this long after it was sent (0: no limit).
	FirstByteTimeout time.Duration
	// IdleTimeout ends a stream that sends no byte for this long once it
	// has started (0: no limit).
	IdleTimeout time.Duration
	// MaxAnswerBytes cuts an answer when its text, reasoning and tool
	// arguments reach this many bytes (0: no limit); the Reply says Cut.
	MaxAnswerBytes int
}

// Request is one chat completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []Tool // none: the model answers in text
}

// Message is a message as the model sees it.
type Message struct {
	Role       string // system, user, assistant, tool
	Content    string
	ToolCalls  []ToolCall // assistant messages that called tools
	ToolCallID string     // tool messages: the call answered
	// Reasoning is sent back as the assistant message's reasoning_content.
	// The turn loop sets it only on the tool-call messages of the turn in
	// progress whose reasoning came as reasoning_content (DeepSeek's
	// thinking mode requires it there and rejects it anywhere else).
	Reasoning string
}

// Delta is a piece of a streamed answer: text, or reasoning (the model's
// thinking, shown apart and never part of the answer).
type Delta struct {
	Text      string
	Reasoning string
}

// The forms reasoning arrives in.
const (
	ReasoningTag     = "tag"               // <think>…</think> at the start of the content
	ReasoningContent = "reasoning_content" // a reasoning_content delta (DeepSeek, vLLM)
	ReasoningField   = "reasoning"         // a reasoning delta (LM Studio and Ollama for gpt-oss)
)

// ToolCall is one tool call of the model, assembled from the stream.
type ToolCall struct {
	ID   string
	Name string
	Args string // JSON
}

// Tool describes a tool to the model.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema of the arguments
}

// Reply is a finished completion.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	Finish    string // stop, tool_calls, length…
	Usage     Usage
	// Reasoning is the model's thinking, apart from Text, and
	// ReasoningForm the form it came in (ReasoningTag…; "" for none).
	Reasoning     string
	ReasoningForm string
	// Cut reports an answer that reached Endpoint.MaxAnswerBytes and was
	// cut there: the rest was not read.
	Cut bool
}

// ErrInterrupted is wrapped by the error of a stream that ended before
// the model finished: no finish reason and no [DONE]. The reply holds
// what arrived.
var ErrInterrupted = errors.New("the stream ended before the answer was finished")

// ErrEmpty is wrapped by the error of a stream that ended with nothing in
// it: no text, reasoning, tool call or finish reason.
var ErrEmpty = errors.New("the stream ended without any answer")

// TimeoutError ends a stream that went silent: the first byte of the
// answer did not come within Endpoint.FirstByteTimeout, or no byte came
// for Endpoint.IdleTimeout once it had started.
type TimeoutError struct {
	FirstByte bool          // the answer never started
	After     time.Duration // the timeout that ran out
}

// Error implements error.
func (e *TimeoutError) Error() string {
	if e.FirstByte {
		return fmt.Sprintf("no answer within %s", e.After)
	}
	return fmt.Sprintf("the stream was silent for %s", e.After)
}

// Usage counts the tokens of one completion, as the endpoint reported them.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// StatusError is an error answer of the endpoint, in the terms the agent
// classifies it by: the HTTP status and the endpoint's own words.
type StatusError struct {
	// Status is the HTTP status; 0 for an error sent inside a stream that
	// had started with 200.
	Status int
	// Message is the endpoint's message (or the body it sent, when it was
	// not an error object).
	Message string
	// Code is the endpoint's error code and type, when it gave them
	// ("context_length_exceeded invalid_request_error").
	Code string
	// RetryAfter is how long the endpoint asked to wait before trying
	// again (its Retry-After header), 0 when it did not say.
	RetryAfter time.Duration
	// Err is the adapter's own error, for logs and errors.As.
	Err error
}

// Error implements error.
func (e *StatusError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("status %d: %s", e.Status, e.Message)
}

// Unwrap returns the adapter's error.
func (e *StatusError) Unwrap() error { return e.Err }
