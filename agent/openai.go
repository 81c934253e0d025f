package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// openAIClient is the Completer for OpenAI-compatible endpoints (OpenAI,
// Ollama, LM Studio, llama.cpp, vLLM…), built on go-openai.
type openAIClient struct {
	c *openai.Client
}

var _ Completer = (*openAIClient)(nil)

// newOpenAIClient returns a client for the endpoint at baseURL; a nil
// httpClient means defaultHTTPClient.
func newOpenAIClient(baseURL, apiKey string, httpClient *http.Client) *openAIClient {
	cfg := openai.DefaultConfig(apiKey)
	cfg.BaseURL = strings.TrimRight(baseURL, "/")
	if httpClient == nil {
		httpClient = defaultHTTPClient
	}
	cfg.HTTPClient = httpClient
	return &openAIClient{c: openai.NewClientWithConfig(cfg)}
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

// Models implements Completer.
func (o *openAIClient) Models(ctx context.Context) ([]string, error) {
	list, err := o.c.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// Complete implements Completer.
func (o *openAIClient) Complete(ctx context.Context, req Request, onText func(string)) (Reply, error) {
	stream, err := o.c.CreateChatCompletionStream(ctx, toOpenAI(req))
	if err != nil {
		return Reply{}, fmt.Errorf("chat completion: %w", err)
	}
	defer stream.Close()
	var (
		reply Reply
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
			return reply, fmt.Errorf("chat completion stream: %w", err)
		}
		if chunk.Usage != nil {
			reply.Usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens}
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

// toolAccumulator assembles tool calls from stream deltas: the first delta of
// a call carries its index, ID and name, the next ones pieces of arguments.
type toolAccumulator struct {
	parts []ToolCallPart
	index map[int]int // stream index -> position in parts
}

func (a *toolAccumulator) add(tc openai.ToolCall) {
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
			a.parts = append(a.parts, ToolCallPart{})
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
			a.parts = append(a.parts, ToolCallPart{})
		}
	case len(a.parts) > 0:
		pos = len(a.parts) - 1
	default:
		pos = 0
		a.parts = append(a.parts, ToolCallPart{})
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
func (a *toolAccumulator) calls() []ToolCallPart {
	out := make([]ToolCallPart, 0, len(a.parts))
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
func toOpenAI(req Request) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Args}})
		}
		r.Messages = append(r.Messages, om)
	}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	return r
}
