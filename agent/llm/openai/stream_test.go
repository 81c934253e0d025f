package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"engram/agent/agenttest"
	"engram/agent/llm"
	"engram/agent/llm/openai"
)

// complete makes one completion against srv and returns the reply, the
// text and reasoning deltas as they came, and the error.
func complete(t *testing.T, srv *agenttest.Server, ep llm.Endpoint, req llm.Request) (llm.Reply, []llm.Delta, error) {
	t.Helper()
	ep.BaseURL = srv.BaseURL()
	if req.Model == "" {
		req.Model = "m"
	}
	var deltas []llm.Delta
	reply, err := openai.New(ep, srv.Client()).Complete(context.Background(), req, func(d llm.Delta) {
		deltas = append(deltas, d)
	})
	return reply, deltas, err
}

// joined returns the concatenated text and reasoning of deltas, checking
// that no delta carries both.
func joined(t *testing.T, deltas []llm.Delta) (text, reasoning string) {
	t.Helper()
	for _, d := range deltas {
		if d.Text != "" && d.Reasoning != "" {
			t.Errorf("a delta carries text and reasoning: %+v", d)
		}
		text += d.Text
		reasoning += d.Reasoning
	}
	return text, reasoning
}

func TestReasoningInItsThreeForms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply agenttest.Reply
		form  string
	}{
		{"think tag split across chunks", agenttest.Reply{Pieces: []string{"<thi", "nk>Let me see: ", "2+2 is 4.</th",
			"ink>\n\n", "It is 4."}}, llm.ReasoningTag},
		{"thinking tag", agenttest.Reply{Text: "<thinking>Let me see: 2+2 is 4.</thinking>It is 4."}, llm.ReasoningTag},
		{"reasoning tag", agenttest.Reply{Text: "\n<reasoning>Let me see: 2+2 is 4.</reasoning>\nIt is 4."},
			llm.ReasoningTag},
		{"reasoning_content delta", agenttest.Reply{Reasoning: "Let me see: 2+2 is 4.", Text: "It is 4."},
			llm.ReasoningContent},
		{"reasoning delta", agenttest.Reply{Reasoning: "Let me see: 2+2 is 4.", ReasoningField: "reasoning",
			Text: "It is 4."}, llm.ReasoningField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := agenttest.NewServer()
			defer srv.Close()
			srv.Push(tc.reply)
			reply, deltas, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != "It is 4." || reply.Reasoning != "Let me see: 2+2 is 4." || reply.ReasoningForm != tc.form {
				t.Errorf("reply text %q, reasoning %q (%s)", reply.Text, reply.Reasoning, reply.ReasoningForm)
			}
			text, reasoning := joined(t, deltas)
			if text != reply.Text || reasoning != reply.Reasoning {
				t.Errorf("deltas: text %q, reasoning %q", text, reasoning)
			}
			if len(deltas) < 3 || deltas[0].Reasoning == "" || deltas[len(deltas)-1].Text == "" {
				t.Errorf("reasoning does not come first, then text: %+v", deltas)
			}
		})
	}
}

func TestReasoningGoesBackOnlyWhereTheRequestPutsIt(t *testing.T) {
	srv := agenttest.NewServer()
	defer srv.Close()
	_, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{Messages: []llm.Message{
		{Role: "user", Content: "q"},
		{Role: "assistant", Content: "earlier answer"},
		{Role: "user", Content: "save it"},
		{Role: "assistant", Reasoning: "I should save it.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "memory_write",
			Args: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: "saved"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages
	if msgs[3].ReasoningContent != "I should save it." || msgs[1].ReasoningContent != "" {
		t.Errorf("reasoning_content sent as %+v", msgs)
	}
	if strings.Contains(string(srv.Requests()[0].Body), `"reasoning_content":""`) {
		t.Errorf("an empty reasoning_content was sent: %s", srv.Requests()[0].Body)
	}
}

func TestHonestStreams(t *testing.T) {
	t.Run("cut without finish reason is interrupted", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{Text: "one two three four five six seven eight nine ten eleven", CutAfter: 10})
		reply, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if !errors.Is(err, llm.ErrInterrupted) || !strings.HasPrefix(reply.Text, "one two ") || reply.Finish != "" {
			t.Errorf("reply %+v, err %v", reply, err)
		}
	})
	t.Run("finish reason without [DONE] is complete", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{Text: "all of it", NoDone: true})
		reply, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if err != nil || reply.Text != "all of it" {
			t.Errorf("reply %+v, err %v", reply, err)
		}
	})
	t.Run("headers then close is empty", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{Empty: true})
		_, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if !errors.Is(err, llm.ErrEmpty) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("no first byte", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{Silent: true})
		_, _, err := complete(t, srv, llm.Endpoint{FirstByteTimeout: 50 * time.Millisecond, IdleTimeout: time.Hour},
			llm.Request{})
		var te *llm.TimeoutError
		if !errors.As(err, &te) || !te.FirstByte || te.After != 50*time.Millisecond {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("silent after the first piece", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		hold := make(chan struct{})
		defer close(hold)
		srv.Push(agenttest.Reply{Text: "The start of it and then nothing", Hold: hold})
		reply, _, err := complete(t, srv, llm.Endpoint{FirstByteTimeout: time.Hour, IdleTimeout: 50 * time.Millisecond},
			llm.Request{})
		var te *llm.TimeoutError
		if !errors.As(err, &te) || te.FirstByte || te.After != 50*time.Millisecond || reply.Text != "The " {
			t.Errorf("reply %q, err = %v", reply.Text, err)
		}
	})
	t.Run("an answer over the limit is cut", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		const limit = 1 << 20
		srv.Push(agenttest.Reply{Text: strings.Repeat("é long answer ", 6<<20/15), PieceSize: 64 << 10})
		reply, deltas, err := complete(t, srv, llm.Endpoint{MaxAnswerBytes: limit}, llm.Request{})
		text, _ := joined(t, deltas)
		if err != nil || !reply.Cut || len(reply.Text) > limit || len(reply.Text) < limit-2 || text != reply.Text {
			t.Errorf("cut %v at %d bytes (deltas %d), err %v", reply.Cut, len(reply.Text), len(text), err)
		}
		if !strings.HasPrefix(reply.Text, "é long") || !strings.HasSuffix(strings.ToValidUTF8(reply.Text, "?"),
			reply.Text[len(reply.Text)-1:]) {
			t.Errorf("the cut splits a character: %q", reply.Text[len(reply.Text)-8:])
		}
	})
}

func TestErrorAnswersSayWhatTheServerSaid(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name  string
		reply agenttest.Reply
		msg   string
		wait  [2]time.Duration
	}{
		{"retry-after seconds", agenttest.Reply{Status: 429, Message: "slow down", RetryAfter: "3"}, "slow down",
			[2]time.Duration{3 * time.Second, 3 * time.Second}},
		{"retry-after date", agenttest.Reply{Status: 503, Message: "overloaded", RetryAfter: date}, "overloaded",
			[2]time.Duration{28 * time.Second, 30 * time.Second}},
		{"ollama error string", agenttest.Reply{Status: 400, Body: `{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}`},
			"registry.ollama.ai/library/gemma:2b does not support tools", [2]time.Duration{}},
		{"detail", agenttest.Reply{Status: 422, Body: `{"detail":"max_tokens must be at least 1"}`},
			"max_tokens must be at least 1", [2]time.Duration{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := agenttest.NewServer()
			defer srv.Close()
			srv.Push(tc.reply)
			_, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != tc.reply.Status || se.Message != tc.msg ||
				se.RetryAfter < tc.wait[0] || se.RetryAfter > tc.wait[1] {
				t.Errorf("err = %v (%+v)", err, se)
			}
		})
	}
}

func TestRedirectToAnotherPortDropsTheKey(t *testing.T) {
	target := agenttest.NewServer()
	defer target.Close()
	redirect := func(to string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to+r.URL.Path, http.StatusTemporaryRedirect)
		}))
	}
	other := redirect(target.HTTP.URL) // another port of 127.0.0.1
	defer other.Close()
	if !strings.HasPrefix(other.URL, "http://127.0.0.1:") || !strings.HasPrefix(target.HTTP.URL, "http://127.0.0.1:") {
		t.Fatalf("servers at %s and %s", other.URL, target.HTTP.URL)
	}
	c := openai.New(llm.Endpoint{BaseURL: other.URL + "/v1", APIKey: "sk-secret"}, other.Client())
	if _, err := c.Complete(context.Background(), llm.Request{Model: "m"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := target.Requests(); len(got) != 1 || got[0].Auth != "" {
		t.Errorf("the redirect target got Authorization %q", got[0].Auth)
	}

	// A redirect within the same origin keeps it.
	same := agenttest.NewServer()
	defer same.Close()
	mux := http.NewServeMux()
	mux.Handle("/old/", http.StripPrefix("/old", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
	})))
	mux.Handle("/", same.Fake)
	same.HTTP.Config.Handler = mux
	c = openai.New(llm.Endpoint{BaseURL: same.HTTP.URL + "/old/v1", APIKey: "sk-secret"}, same.Client())
	if _, err := c.Complete(context.Background(), llm.Request{Model: "m"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := same.Requests(); len(got) != 1 || got[0].Auth != "Bearer sk-secret" {
		t.Errorf("a same-origin redirect lost Authorization: %+v", got)
	}
}

func TestQuirksOfRealServers(t *testing.T) {
	write := agenttest.ToolCall{ID: "call_a", Name: "memory_write", Args: `{"kind":"fact","text":"one"}`}
	search := agenttest.ToolCall{ID: "call_b", Name: "memory_search", Args: `{"query":"two"}`}
	t.Run("whole tool calls without index", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{write, search}, WholeToolCalls: true})
		reply, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if err != nil || len(reply.ToolCalls) != 2 || reply.ToolCalls[0] != (llm.ToolCall(write)) ||
			reply.ToolCalls[1] != llm.ToolCall(search) {
			t.Errorf("calls %+v, err %v", reply.ToolCalls, err)
		}
	})
	t.Run("arguments as an object", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{write}, ArgsAsObject: true})
		reply, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if err != nil || len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Args != write.Args {
			t.Errorf("calls %+v, err %v", reply.ToolCalls, err)
		}
	})
	t.Run("missing tool-call ids", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		a, b := write, search
		a.ID, b.ID = "", ""
		srv.Push(agenttest.Reply{ToolCalls: []agenttest.ToolCall{a, b}, WholeToolCalls: true})
		reply, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if err != nil || len(reply.ToolCalls) != 2 || reply.ToolCalls[0].ID == "" ||
			reply.ToolCalls[0].ID == reply.ToolCalls[1].ID || reply.ToolCalls[1].Args != search.Args {
			t.Errorf("calls %+v, err %v", reply.ToolCalls, err)
		}
	})
	t.Run("usage only in the last chunk", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{Text: "ok", UsageInFinish: true, Usage: &agenttest.Usage{PromptTokens: 9,
			CompletionTokens: 1}})
		reply, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if err != nil || reply.Usage != (llm.Usage{PromptTokens: 9, CompletionTokens: 1}) || reply.Finish != "stop" {
			t.Errorf("reply %+v, err %v", reply, err)
		}
	})
	t.Run("tool_calls finish with content", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.Push(agenttest.Reply{Text: "Let me save that.", ToolCalls: []agenttest.ToolCall{write}})
		reply, _, err := complete(t, srv, llm.Endpoint{}, llm.Request{})
		if err != nil || reply.Text != "Let me save that." || len(reply.ToolCalls) != 1 || reply.Finish != "tool_calls" {
			t.Errorf("reply %+v, err %v", reply, err)
		}
	})
	t.Run("stream_options refused", func(t *testing.T) {
		srv := agenttest.NewServer()
		defer srv.Close()
		srv.RejectStreamOptions = true
		c := openai.New(llm.Endpoint{BaseURL: srv.BaseURL()}, srv.Client())
		for i := 0; i < 2; i++ {
			reply, err := c.Complete(context.Background(), llm.Request{Model: "m",
				Messages: []llm.Message{{Role: "user", Content: "hi"}}}, nil)
			if err != nil || reply.Text != "Echo: hi" {
				t.Fatalf("reply %+v, err %v", reply, err)
			}
		}
		got := srv.Requests()
		if len(got) != 3 || !got[0].StreamOptions || got[1].StreamOptions || got[2].StreamOptions {
			t.Errorf("%d requests; stream_options: %v", len(got), func() (o []bool) {
				for _, r := range got {
					o = append(o, r.StreamOptions)
				}
				return o
			}())
		}
	})
}
