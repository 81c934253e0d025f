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
	"fmt"
)

// Completer is the provider seam: one streaming chat completion, and the
// list of models.
type Completer interface {
	// Complete streams one completion. onText, if not nil, is called with
	// each piece of text as it arrives, on the calling goroutine. The reply
	// holds the whole text and the tool calls, assembled; after a failure
	// it holds what arrived before it. An error answer of the endpoint
	// is, or wraps, a *StatusError.
	Complete(ctx context.Context, req Request, onText func(string)) (Reply, error)
	// Models lists the model IDs the endpoint offers.
	Models(ctx context.Context) ([]string, error)
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
}

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
