// Package openai is the Completer for OpenAI-compatible endpoints (OpenAI,
// Ollama, LM Studio, llama.cpp, vLLM, DeepSeek…), built on go-openai (as is
// agent/embedding, semantic recall's embedder). It turns the seam's Request into
// a streaming Chat Completions call, decodes the streamed chunks as real
// servers send them (reasoning in its three forms, tool calls whole or in
// pieces, arguments as a string or an object, usage in any chunk) into a
// Reply, and turns go-openai's error answers into *llm.StatusError so the
// agent classifies them without knowing the SDK.
//
// Its HTTP client's transport (transport.go) adds what go-openai does not
// do: the first-byte and idle timeouts of a stream, the Retry-After of an
// error answer, telling a stream that ended with [DONE] from one that was
// cut, and no Authorization header on a redirect to another origin.
//
// It imports llm and go-openai, nothing of agent.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"engram/agent/llm"
)

// maxKeepAlives is how many lines that carry no data (SSE comments, blank
// lines) a stream may send in a row.
const maxKeepAlives = 100000

// Client is the Completer of one endpoint.
type Client struct {
	c  *goopenai.Client
	ep llm.Endpoint
	// noStreamOptions is set once the endpoint refused stream_options.
	noStreamOptions atomic.Bool
}

var _ llm.Completer = (*Client)(nil)

// New returns a client for the endpoint. A nil httpClient means one with
// connect and header timeouts but no overall timeout, as answers stream for
// minutes; either way its transport is wrapped (see the package doc).
func New(ep llm.Endpoint, httpClient *http.Client) *Client {
	cfg := goopenai.DefaultConfig(ep.APIKey)
	cfg.BaseURL = strings.TrimRight(ep.BaseURL, "/")
	if httpClient == nil {
		httpClient = defaultHTTPClient
	}
	cfg.HTTPClient = withTransport(httpClient)
	// Keep-alive comments while a model thinks are not "empty messages"
	// to give up on (go-openai's default allows 300 in a row).
	cfg.EmptyMessagesLimit = maxKeepAlives
	return &Client{c: goopenai.NewClientWithConfig(cfg), ep: ep}
}

// Models implements llm.Completer.
func (o *Client) Models(ctx context.Context) ([]string, error) {
	list, err := o.c.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", statusError(err, 0))
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// Complete implements llm.Completer. An endpoint that refuses
// stream_options is asked again without it, and not asked with it again.
func (o *Client) Complete(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	for {
		withOptions := !o.noStreamOptions.Load()
		reply, err := o.complete(ctx, req, withOptions, onDelta)
		if withOptions && refusesStreamOptions(err) {
			o.noStreamOptions.Store(true)
			continue
		}
		return reply, err
	}
}

// complete makes one streaming call.
func (o *Client) complete(ctx context.Context, req llm.Request, withOptions bool, onDelta func(llm.Delta)) (llm.Reply, error) {
	wctx, w, cancel := newWatch(ctx, o.ep.FirstByteTimeout, o.ep.IdleTimeout)
	defer cancel(nil)
	defer w.stop()
	stream, err := o.c.CreateChatCompletionStream(wctx, toOpenAI(req, withOptions))
	if err != nil {
		return llm.Reply{}, fmt.Errorf("chat completion: %w", o.failure(ctx, wctx, w, err))
	}
	defer stream.Close()
	d := &decoder{onDelta: onDelta, max: o.ep.MaxAnswerBytes}
	for !d.reply.Cut {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = d.chunk(raw)
		}
		if err != nil {
			return d.finish(), fmt.Errorf("chat completion stream: %w", o.failure(ctx, wctx, w, err))
		}
	}
	reply := d.finish()
	switch {
	case reply.Cut || reply.Finish != "":
	case !d.any:
		return reply, fmt.Errorf("chat completion stream: %w", llm.ErrEmpty)
	case !w.sawDone():
		return reply, fmt.Errorf("chat completion stream: %w", llm.ErrInterrupted)
	}
	return reply, nil
}

// failure explains an error of a call: the watch's timeout when it ended
// the call, else the endpoint's error answer with its Retry-After.
func (o *Client) failure(ctx, wctx context.Context, w *watch, err error) error {
	if ctx.Err() == nil && wctx.Err() != nil {
		var te *llm.TimeoutError
		if cause := context.Cause(wctx); errors.As(cause, &te) {
			return te
		}
	}
	return statusError(err, w.retryAfterValue(time.Now()))
}

// refusesStreamOptions reports an endpoint's refusal of stream_options.
func refusesStreamOptions(err error) bool {
	var se *llm.StatusError
	if !errors.As(err, &se) || se.Status < 400 || se.Status >= 500 {
		return false
	}
	lower := strings.ToLower(se.Message)
	return strings.Contains(lower, "stream_options") || strings.Contains(lower, "include_usage")
}

// statusError wraps go-openai's error answers (an error object, or a body
// that was none) in an *llm.StatusError; other errors (transport, a broken
// stream) are returned as they are.
func statusError(err error, retryAfter time.Duration) error {
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &reqErr): // first: it may wrap an empty APIError
		return &llm.StatusError{Status: reqErr.HTTPStatusCode, Message: bodyMessage(reqErr.Body),
			RetryAfter: retryAfter, Err: err}
	case errors.As(err, &apiErr):
		code, _ := apiErr.Code.(string)
		if apiErr.Type != "" {
			code += " " + apiErr.Type
		}
		return &llm.StatusError{Status: apiErr.HTTPStatusCode, Message: apiErr.Message,
			Code: strings.TrimSpace(code), RetryAfter: retryAfter, Err: err}
	}
	return err
}

// bodyMessage is the message of an error body that is not an OpenAI error
// object: {"error": "…"} (Ollama), {"detail": "…"}, {"message": "…"}, or
// the body itself.
func bodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		for _, raw := range []json.RawMessage{v.Error, v.Detail, v.Message} {
			if s := text(raw); s != "" {
				return s
			}
		}
	}
	return strings.TrimSpace(string(body))
}

// toOpenAI converts a Request to go-openai's form, asking for usage in the
// stream unless the endpoint refuses stream_options.
func toOpenAI(req llm.Request, withOptions bool) goopenai.ChatCompletionRequest {
	r := goopenai.ChatCompletionRequest{Model: req.Model, Stream: true}
	if withOptions {
		r.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	}
	for _, m := range req.Messages {
		om := goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID,
			ReasoningContent: m.Reasoning}
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
