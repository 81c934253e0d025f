package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"engram/agent/agenttest"
	"engram/agent/llm"
	"engram/agent/llm/openai"
)

func TestCompleteStreamsTextAndToolCalls(t *testing.T) {
	srv := agenttest.NewServer()
	defer srv.Close()
	srv.Push(agenttest.Reply{Text: "Saving that.", ToolCalls: []agenttest.ToolCall{
		{ID: "c1", Name: "memory_write", Args: `{"kind":"fact","text":"one"}`},
		{ID: "c2", Name: "memory_search", Args: `{"query":"two"}`},
	}, Usage: &agenttest.Usage{PromptTokens: 12, CompletionTokens: 5}})
	c := openai.New(llm.Endpoint{BaseURL: srv.BaseURL() + "/", APIKey: "sk-test"}, srv.Client())
	req := llm.Request{Model: "m", Messages: []llm.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "remember one"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c0", Name: "memory_search", Args: `{"query":"x"}`}}},
		{Role: "tool", Content: "nothing", ToolCallID: "c0"},
	}, Tools: []llm.Tool{{Name: "memory_write", Description: "store", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	var pieces []string
	reply, err := c.Complete(context.Background(), req, func(d llm.Delta) { pieces = append(pieces, d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "Saving that." || strings.Join(pieces, "") != reply.Text || len(pieces) < 2 {
		t.Errorf("text %q in pieces %q", reply.Text, pieces)
	}
	want := []llm.ToolCall{{ID: "c1", Name: "memory_write", Args: `{"kind":"fact","text":"one"}`},
		{ID: "c2", Name: "memory_search", Args: `{"query":"two"}`}}
	if len(reply.ToolCalls) != 2 || reply.ToolCalls[0] != want[0] || reply.ToolCalls[1] != want[1] {
		t.Errorf("tool calls = %+v, want %+v", reply.ToolCalls, want)
	}
	if reply.Finish != "tool_calls" || reply.Usage != (llm.Usage{PromptTokens: 12, CompletionTokens: 5}) {
		t.Errorf("finish %q, usage %+v", reply.Finish, reply.Usage)
	}
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	r := got[0]
	if r.Model != "m" || !r.Stream || !r.IncludeUsage || r.Auth != "Bearer sk-test" ||
		len(r.Tools) != 1 || r.Tools[0] != "memory_write" || len(r.Messages) != 4 {
		t.Errorf("request = %+v", r)
	}
	if tc := r.Messages[2].ToolCalls; len(tc) != 1 || tc[0].ID != "c0" || tc[0].Function.Name != "memory_search" ||
		r.Messages[3].ToolCallID != "c0" || r.Messages[3].Content != "nothing" {
		t.Errorf("tool messages sent as %+v", r.Messages[2:])
	}
}

func TestErrorAnswersBecomeStatusErrors(t *testing.T) {
	srv := agenttest.NewServer()
	defer srv.Close()
	srv.Push(agenttest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorCode: "context_length_exceeded",
		Message: "maximum context length is 4096 tokens"})
	c := openai.New(llm.Endpoint{BaseURL: srv.BaseURL()}, srv.Client())
	_, err := c.Complete(context.Background(), llm.Request{Model: "m"}, nil)
	var se *llm.StatusError
	if !errors.As(err, &se) || se.Status != 400 || se.Message != "maximum context length is 4096 tokens" ||
		se.Code != "context_length_exceeded invalid_request_error" {
		t.Fatalf("err = %v (%+v)", err, se)
	}

	// A gateway's HTML page is no error object: its body is the message.
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
	}))
	defer html.Close()
	c = openai.New(llm.Endpoint{BaseURL: html.URL + "/v1"}, html.Client())
	for name, call := range map[string]func() error{
		"complete": func() error { _, err := c.Complete(context.Background(), llm.Request{Model: "m"}, nil); return err },
		"models":   func() error { _, err := c.Models(context.Background()); return err },
	} {
		se = nil
		if err := call(); !errors.As(err, &se) || se.Status != 502 || !strings.Contains(se.Message, "bad gateway") {
			t.Errorf("%s: err = %v (%+v)", name, err, se)
		}
	}
}

func TestTransportErrorsStayAsTheyAre(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1"
	srv.Close() // nothing listens any more
	_, err := openai.New(llm.Endpoint{BaseURL: url}, nil).Complete(context.Background(), llm.Request{Model: "m"}, nil)
	var se *llm.StatusError
	if err == nil || errors.As(err, &se) {
		t.Errorf("err = %v, want a transport error that is no StatusError", err)
	}
}

func TestModels(t *testing.T) {
	srv := agenttest.NewServer()
	defer srv.Close()
	srv.Models = []string{"llama3.2", "qwen3"}
	ids, err := openai.New(llm.Endpoint{BaseURL: srv.BaseURL()}, srv.Client()).Models(context.Background())
	if err != nil || strings.Join(ids, ",") != "llama3.2,qwen3" {
		t.Errorf("Models = %v, %v", ids, err)
	}
}
