package agent

import (
	"context"
	"encoding/json"
)

// Completer is the provider seam: one streaming chat completion, and the
// list of models. The agent has one implementation, the OpenAI-compatible
// adapter; tests reach it through an httptest server.
type Completer interface {
	// Complete streams one completion. onText, if not nil, is called with
	// each piece of text as it arrives, on the calling goroutine. The reply
	// holds the whole text and the tool calls, assembled.
	Complete(ctx context.Context, req Request, onText func(string)) (Reply, error)
	// Models lists the model IDs the endpoint offers.
	Models(ctx context.Context) ([]string, error)
}

// Request is one chat completion request.
type Request struct {
	Model    string
	Messages []WireMessage
	Tools    []ToolDef // none: the model answers in text
}

// WireMessage is a message as the model sees it.
type WireMessage struct {
	Role       string // system, user, assistant, tool
	Content    string
	ToolCalls  []ToolCallPart // assistant messages that called tools
	ToolCallID string         // tool messages: the call answered
}

// ToolCallPart is one tool call of the model, assembled from the stream.
type ToolCallPart struct {
	ID   string
	Name string
	Args string // JSON
}

// ToolDef describes a tool to the model.
type ToolDef struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema of the arguments
}

// Reply is a finished completion.
type Reply struct {
	Text      string
	ToolCalls []ToolCallPart
	Finish    string // stop, tool_calls, length…
	Usage     Usage
}
