// Package agenttest is test support for the packages over the agent: a
// temporary home for a package's tests (RunInTempHome) and a fake
// OpenAI-compatible endpoint for tests and
// end-to-end runs. It speaks the streaming Chat Completions protocol as the
// real API does: Server-Sent Events "data: {chunk}" lines ending with
// "data: [DONE]", text split over several chunks, tool calls whose ID and
// name come in a first delta and whose arguments follow in pieces (parallel
// calls interleaved), a final usage chunk when stream_options.include_usage
// is set, GET /v1/models, POST /v1/embeddings (embeddings.go), and
// scripted failures with OpenAI-style error bodies.
//
// Replies are scripted with Push; when the script is empty the Respond
// function answers, and without one the fake echoes the last user message.
// Requests for a chat's title (title.go) have a script of their own.
// A Reply can also play the ways real servers differ from the protocol or
// fail: reasoning as reasoning_content or reasoning deltas, tool calls
// whole in one chunk without an index, arguments as a JSON object, usage
// in the finish chunk, a stream cut without a finish reason, an empty or
// silent stream, a Retry-After header, an error body that is no error
// object; and the Fake can refuse stream_options.
package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Reply is one scripted answer to a chat completion request.
type Reply struct {
	Text      string     // streamed in pieces of a few characters
	Pieces    []string   // or streamed exactly in these pieces
	ToolCalls []ToolCall // tool calls, after the text

	// Status > 0 makes the reply an error with this HTTP status and an
	// OpenAI-style body {"error": {"message", "type", "code"}}.
	Status    int
	ErrorType string
	ErrorCode string
	Message   string

	// Hold, if not nil, stops the stream after its first text piece until
	// Hold is closed or the client goes away.
	Hold <-chan struct{}

	// Usage overrides the token counts of the final usage chunk.
	Usage *Usage
	// Finish overrides the finish reason ("stop", or "tool_calls" with
	// tool calls), e.g. "length" for an answer cut at the token limit.
	Finish string

	// Reasoning is streamed in pieces before the text, as
	// "reasoning_content" deltas (DeepSeek, vLLM) or, with
	// ReasoningField "reasoning", as "reasoning" deltas (LM Studio and
	// Ollama for gpt-oss). Inline <think> tags are just Text.
	Reasoning      string
	ReasoningField string
	// PieceSize is the size of the pieces Text and Reasoning are cut in
	// (default 4 bytes).
	PieceSize int

	// WholeToolCalls sends each tool call whole in one chunk without an
	// index (Ollama); ArgsAsObject sends the arguments as a JSON object
	// instead of a string (implies WholeToolCalls).
	WholeToolCalls bool
	ArgsAsObject   bool
	// UsageInFinish puts the usage in the chunk with the finish reason,
	// whether or not it was asked for, and sends no usage chunk.
	UsageInFinish bool
	// NoDone leaves out the final "data: [DONE]" line.
	NoDone bool

	// CutAfter > 0 closes the connection after that many chunks, with no
	// finish reason and no [DONE] (a server or proxy that died).
	CutAfter int
	// Empty sends the headers and closes the connection.
	Empty bool
	// Silent sends the headers and then nothing until the client leaves.
	Silent bool

	// RetryAfter is the Retry-After header of an error reply; Body, if
	// set, is sent as the error body instead of an error object.
	RetryAfter string
	Body       string
}

// ToolCall is a tool call in a scripted reply.
type ToolCall struct {
	ID   string
	Name string
	Args string // JSON, sent in several pieces
}

// Usage is the token count of a reply.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Request is a chat completion request as the fake received it.
type Request struct {
	Model         string
	Messages      []Message
	Tools         []string // the names of the tools offered
	Stream        bool
	StreamOptions bool // the request had stream_options
	IncludeUsage  bool
	Auth          string // the Authorization header
	Body          []byte
	Received      time.Time
}

// Message is one message of a received request.
type Message struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	// ReasoningContent is the reasoning an assistant message carried back.
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// System is the request's system prompt (all system messages joined).
func (r Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// LastUser is the content of the request's last user message.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// ToolResults are the contents of the request's tool messages, by call ID.
func (r Request) ToolResults() map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// Fake is the fake endpoint as an http.Handler, for a standalone server.
// Its fields may be set before it serves; use the methods afterwards.
type Fake struct {
	// Models are the IDs GET /v1/models lists (default "fake-model").
	Models []string
	// Respond answers requests when the script is empty (default: echo).
	Respond func(Request) Reply
	// OnRequest, if set, is called as each chat request arrives, before
	// it is answered.
	OnRequest func(Request)
	// RejectStreamOptions answers requests that carry stream_options with
	// 400, as some servers do.
	RejectStreamOptions bool

	// EmbedModels, if set, are the only models /v1/embeddings knows; the
	// others get a 404 model_not_found (default: any model).
	EmbedModels []string
	// EmbedDim is the size of the vectors /v1/embeddings answers
	// (default 32).
	EmbedDim int

	mu        sync.Mutex
	script    []Reply
	requests  []Request
	titles    []Reply   // the script of title requests
	titleReqs []Request // the title requests received
	embeds    embedState
}

// Push appends replies to the script; each request takes the next one.
func (f *Fake) Push(replies ...Reply) {
	f.mu.Lock()
	f.script = append(f.script, replies...)
	f.mu.Unlock()
}

// Pending is the number of scripted replies not yet used.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.script)
}

// Requests returns the chat requests received so far, oldest first.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Server is a Fake on an httptest server.
type Server struct {
	*Fake
	HTTP *httptest.Server
}

// NewServer starts a fake endpoint; Close it when done.
func NewServer() *Server {
	f := &Fake{}
	return &Server{Fake: f, HTTP: httptest.NewServer(f)}
}

// BaseURL is the endpoint's base URL, ending in /v1.
func (s *Server) BaseURL() string { return s.HTTP.URL + "/v1" }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.HTTP.Client() }

// Close shuts the server down.
func (s *Server) Close() {
	s.HTTP.CloseClientConnections()
	s.HTTP.Close()
}

// ServeHTTP implements http.Handler.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		f.serveModels(w)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		f.serveChat(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/embeddings"):
		f.serveEmbeddings(w, r)
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url",
			fmt.Sprintf("Unknown request URL: %s %s", r.Method, r.URL.Path))
	}
}

func (f *Fake) serveModels(w http.ResponseWriter) {
	models := f.Models
	if len(models) == 0 {
		models = []string{"fake-model"}
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, m := range models {
		list.Data = append(list.Data, model{ID: m, Object: "model", OwnedBy: "agenttest"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// WireToolCall is a tool call as the protocol carries it: in request
// messages, and as stream deltas (with Index).
type WireToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (f *Fake) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "cannot read body")
		return
	}
	var in struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
		Stream   bool      `json:"stream"`
		Options  *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "invalid JSON body: "+err.Error())
		return
	}
	req := Request{Model: in.Model, Messages: in.Messages, Stream: in.Stream, Auth: r.Header.Get("Authorization"),
		Body: body, Received: time.Now(), StreamOptions: in.Options != nil,
		IncludeUsage: in.Options != nil && in.Options.IncludeUsage}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	if req.IsTitle() {
		serveReply(r.Context(), w, req, f.nextTitle(req))
		return
	}
	if f.OnRequest != nil {
		f.OnRequest(req)
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	if f.RejectStreamOptions && req.StreamOptions {
		f.mu.Unlock()
		writeError(w, http.StatusBadRequest, "invalid_request_error", "",
			"Unrecognized request argument supplied: stream_options")
		return
	}
	var reply Reply
	scripted := len(f.script) > 0
	if scripted {
		reply = f.script[0]
		f.script = f.script[1:]
	}
	f.mu.Unlock()
	if !scripted {
		if f.Respond != nil {
			reply = f.Respond(req)
		} else {
			reply = Reply{Text: "Echo: " + req.LastUser()}
		}
	}
	serveReply(r.Context(), w, req, reply)
}

// serveReply answers a chat request with reply.
func serveReply(ctx context.Context, w http.ResponseWriter, req Request, reply Reply) {
	if reply.Status > 0 {
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		if reply.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(reply.Status)
			_, _ = io.WriteString(w, reply.Body)
			return
		}
		writeError(w, reply.Status, reply.ErrorType, reply.ErrorCode, reply.Message)
		return
	}
	if !req.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "the fake only streams")
		return
	}
	streamReply(ctx, w, req, reply)
}

// writeError writes an OpenAI-style error response.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	if typ == "" {
		typ = "api_error"
	}
	body := map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nilIfEmpty(code)}}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// chunk is one streamed chat.completion.chunk.
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role             string            `json:"role,omitempty"`
	Content          *string           `json:"content,omitempty"`
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	Reasoning        string            `json:"reasoning,omitempty"`
	ToolCalls        []json.RawMessage `json:"tool_calls,omitempty"`
}

func streamReply(ctx context.Context, w http.ResponseWriter, req Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	switch {
	case reply.Empty:
		return
	case reply.Silent:
		<-ctx.Done()
		return
	}
	base := chunk{ID: "chatcmpl-fake", Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: req.Model}
	sent := 0
	send := func(c chunk) bool {
		if reply.CutAfter > 0 && sent == reply.CutAfter {
			return false
		}
		sent++
		b, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return ctx.Err() == nil
	}
	withDelta := func(d delta, finish *string) chunk {
		c := base
		c.Choices = []chunkChoice{{Delta: d, FinishReason: finish}}
		return c
	}
	empty := ""
	if !send(withDelta(delta{Role: "assistant", Content: &empty}, nil)) {
		return
	}
	size := reply.PieceSize
	if size <= 0 {
		size = 4
	}
	for _, p := range split(reply.Reasoning, size) {
		d := delta{ReasoningContent: p}
		if reply.ReasoningField == "reasoning" {
			d = delta{Reasoning: p}
		}
		if !send(withDelta(d, nil)) {
			return
		}
	}
	pieces := reply.Pieces
	if len(pieces) == 0 {
		pieces = split(reply.Text, size)
	}
	for i, p := range pieces {
		p := p
		if !send(withDelta(delta{Content: &p}, nil)) {
			return
		}
		if i == 0 && reply.Hold != nil {
			select {
			case <-reply.Hold:
			case <-ctx.Done():
				return
			}
		}
	}
	for _, d := range toolDeltas(reply) {
		if !send(withDelta(delta{ToolCalls: []json.RawMessage{d}}, nil)) {
			return
		}
	}
	finish := "stop"
	switch {
	case reply.Finish != "":
		finish = reply.Finish
	case len(reply.ToolCalls) > 0:
		finish = "tool_calls"
	}
	u := reply.Usage
	if u == nil {
		u = &Usage{PromptTokens: len(req.Body) / 4, CompletionTokens: (len(reply.Text) + 3) / 4}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	last := withDelta(delta{}, &finish)
	if reply.UsageInFinish {
		last.Usage = u
	}
	if !send(last) {
		return
	}
	if req.IncludeUsage && !reply.UsageInFinish {
		c := base
		c.Choices = []chunkChoice{}
		c.Usage = u
		if !send(c) {
			return
		}
	}
	if !reply.NoDone {
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// toolDeltas are the tool-call deltas of a reply. As the protocol has it:
// every call's first delta (index, id, name), then the arguments in three
// pieces per call, interleaved across calls. With WholeToolCalls or
// ArgsAsObject: one delta per call, without an index.
func toolDeltas(reply Reply) []json.RawMessage {
	var out []json.RawMessage
	add := func(v any) {
		b, _ := json.Marshal(v)
		out = append(out, b)
	}
	type function struct {
		Name      string `json:"name,omitempty"`
		Arguments any    `json:"arguments"`
	}
	type call struct {
		Index    *int     `json:"index,omitempty"`
		ID       string   `json:"id,omitempty"`
		Type     string   `json:"type,omitempty"`
		Function function `json:"function"`
	}
	if reply.WholeToolCalls || reply.ArgsAsObject {
		for _, tc := range reply.ToolCalls {
			var args any = tc.Args
			if reply.ArgsAsObject {
				args = json.RawMessage(tc.Args)
			}
			add(call{ID: tc.ID, Type: "function", Function: function{Name: tc.Name, Arguments: args}})
		}
		return out
	}
	for i, tc := range reply.ToolCalls {
		add(call{Index: intp(i), ID: tc.ID, Type: "function", Function: function{Name: tc.Name, Arguments: ""}})
	}
	for piece := 0; piece < 3; piece++ {
		for i, tc := range reply.ToolCalls {
			parts := split(tc.Args, (len(tc.Args)+2)/3)
			if piece < len(parts) {
				add(call{Index: intp(i), Function: function{Arguments: parts[piece]}})
			}
		}
	}
	return out
}

// split cuts s into pieces of n bytes, not splitting characters.
func split(s string, n int) []string {
	if n <= 0 {
		n = 1
	}
	var out []string
	for len(s) > 0 {
		end := n
		if end >= len(s) {
			out = append(out, s)
			break
		}
		for end < len(s) && s[end]&0xC0 == 0x80 {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

func intp(i int) *int { return &i }
