// Package openai is the Completer for OpenAI-compatible endpoints (OpenAI,
// Ollama, LM Studio, llama.cpp, vLLM…), built on go-openai. It is the only
// package that imports go-openai: it turns the seam's Request into a
// streaming Chat Completions call, assembles the streamed text and tool
// calls into a Reply, and turns go-openai's error answers into
// *llm.StatusError so the agent classifies them without knowing the SDK.
//
// It imports llm and go-openai, nothing of agent.
package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"engram/agent/llm"
)

// Client is the Completer of one endpoint.
type Client struct {
	c *goopenai.Client
}

var _ llm.Completer = (*Client)(nil)

// New returns a client for the endpoint at baseURL (".../v1") with the
// API key (may be empty). A nil httpClient means one with connect and
// header timeouts but no overall timeout, as answers stream for minutes.
func New(baseURL, apiKey string, httpClient *http.Client) *Client {
	cfg := goopenai.DefaultConfig(apiKey)
	cfg.BaseURL = strings.TrimRight(baseURL, "/")
	if httpClient == nil {
		httpClient = defaultHTTPClient
	}
	cfg.HTTPClient = httpClient
	return &Client{c: goopenai.NewClientWithConfig(cfg)}
}

// defaultHTTPClient has no overall timeout (answers stream for minutes) but
// gives up on endpoints that do not connect or do not start answering.
var defaultHTTPClient = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	ForceAttemptHTTP2:     true,
	MaxIdleConns:          10,
	IdleConnTimeout:       90 * time.Second,
	TLSHandshakeTimeout:   10 * time.Second,
	ResponseHeaderTimeout: 5 * time.Minute, // a local server may load the model first
}}

// Models implements llm.Completer.
func (o *Client) Models(ctx context.Context) ([]string, error) {
	list, err := o.c.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", statusError(err))
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// Complete implements llm.Completer.
func (o *Client) Complete(ctx context.Context, req llm.Request, onText func(string)) (llm.Reply, error) {
	stream, err := o.c.CreateChatCompletionStream(ctx, toOpenAI(req))
	if err != nil {
		return llm.Reply{}, fmt.Errorf("chat completion: %w", statusError(err))
	}
	defer stream.Close()
	var (
		reply llm.Reply
		text  strings.Builder
		acc   toolAccumulator
	)
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			reply.Text = text.String()
			reply.ToolCalls = acc.calls()
			return reply, fmt.Errorf("chat completion stream: %w", statusError(err))
		}
		if chunk.Usage != nil {
			reply.Usage = llm.Usage{PromptTokens: chunk.Usage.PromptTokens,
				CompletionTokens: chunk.Usage.CompletionTokens}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // only one choice is asked for
			}
			if ch.Delta.Content != "" {
				text.WriteString(ch.Delta.Content)
				if onText != nil {
					onText(ch.Delta.Content)
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				acc.add(tc)
			}
			if ch.FinishReason != "" {
				reply.Finish = string(ch.FinishReason)
			}
		}
	}
	reply.Text = text.String()
	reply.ToolCalls = acc.calls()
	return reply, nil
}

// statusError wraps go-openai's error answers (an error object, or a body
// that was none) in an *llm.StatusError; other errors (transport, a broken
// stream) are returned as they are.
func statusError(err error) error {
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		code, _ := apiErr.Code.(string)
		if apiErr.Type != "" {
			code += " " + apiErr.Type
		}
		return &llm.StatusError{Status: apiErr.HTTPStatusCode, Message: apiErr.Message,
			Code: strings.TrimSpace(code), Err: err}
	case errors.As(err, &reqErr):
		return &llm.StatusError{Status: reqErr.HTTPStatusCode, Message: string(reqErr.Body), Err: err}
	}
	return err
}

// toolAccumulator assembles tool calls from stream deltas: the first delta of
// a call carries its index, ID and name, the next ones pieces of arguments.
type toolAccumulator struct {
	parts []llm.ToolCall
	index map[int]int // stream index -> position in parts
}

func (a *toolAccumulator) add(tc goopenai.ToolCall) {
	pos := -1
	switch {
	case tc.Index != nil:
		if a.index == nil {
			a.index = map[int]int{}
		}
		p, ok := a.index[*tc.Index]
		if ok && tc.ID != "" && a.parts[p].ID != "" && tc.ID != a.parts[p].ID {
			ok = false // a server that gives every call index 0: a new ID is a new call
		}
		if !ok {
			p = len(a.parts)
			a.index[*tc.Index] = p
			a.parts = append(a.parts, llm.ToolCall{})
		}
		pos = p
	case tc.ID != "":
		// No index (some servers send whole calls): a new ID is a new call.
		for i, p := range a.parts {
			if p.ID == tc.ID {
				pos = i
			}
		}
		if pos < 0 {
			pos = len(a.parts)
			a.parts = append(a.parts, llm.ToolCall{})
		}
	case len(a.parts) > 0:
		pos = len(a.parts) - 1
	default:
		pos = 0
		a.parts = append(a.parts, llm.ToolCall{})
	}
	p := &a.parts[pos]
	if p.ID == "" {
		p.ID = tc.ID
	}
	if p.Name == "" {
		p.Name = tc.Function.Name
	}
	p.Args += tc.Function.Arguments
}

// calls returns the assembled calls, giving an ID to calls that had none.
func (a *toolAccumulator) calls() []llm.ToolCall {
	out := make([]llm.ToolCall, 0, len(a.parts))
	for i, p := range a.parts {
		if p.Name == "" {
			continue
		}
		if p.ID == "" {
			p.ID = fmt.Sprintf("call_%d", i)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// toOpenAI converts a Request to go-openai's form, asking for usage in the
// stream.
func toOpenAI(req llm.Request) goopenai.ChatCompletionRequest {
	r := goopenai.ChatCompletionRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
	}
	for _, m := range req.Messages {
		om := goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, goopenai.ToolCall{ID: tc.ID, Type: goopenai.ToolTypeFunction,
				Function: goopenai.FunctionCall{Name: tc.Name, Arguments: tc.Args}})
		}
		r.Messages = append(r.Messages, om)
	}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	return r
}
