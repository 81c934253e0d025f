package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"engram/agent/llm"
)

// flaky is a Completer whose calls fail with errs in turn, then succeed;
// it records when each call came, in the bubble's fake time.
type flaky struct {
	errs     []error
	streamed bool // each failing call streams a piece first
	calls    []time.Duration
	start    time.Time
}

// Complete implements llm.Completer.
func (f *flaky) Complete(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (llm.Reply, error) {
	f.calls = append(f.calls, time.Since(f.start))
	if len(f.errs) == 0 {
		return llm.Reply{Text: "ok", Finish: "stop"}, nil
	}
	err := f.errs[0]
	f.errs = f.errs[1:]
	if f.streamed {
		onDelta(llm.Delta{Text: "par"})
	}
	return llm.Reply{}, err
}

// Models implements llm.Completer.
func (f *flaky) Models(context.Context) ([]string, error) { return nil, nil }

// statusErr is an error answer of the endpoint, as the adapter wraps it.
func statusErr(code int, retryAfter time.Duration) error {
	return fmt.Errorf("chat completion: %w", &llm.StatusError{Status: code, Message: "busy", RetryAfter: retryAfter})
}

// TestRetryWaits runs complete's retries in fake time: the backoff
// doubles from RetryDelay, a Retry-After replaces it up to maxRetryWait,
// a cancel ends the wait at once, and nothing is retried after a stream
// began or past maxRetries.
func TestRetryWaits(t *testing.T) {
	t.Parallel()
	const s = time.Second
	tests := []struct {
		name     string
		errs     []error
		streamed bool
		cancelAt time.Duration // 0: never
		calls    []time.Duration
		notices  []string
		err      string // "" for success
	}{
		{name: "backoff doubles", errs: []error{statusErr(503, 0), statusErr(502, 0), statusErr(429, 0)},
			calls: []time.Duration{0, 1 * s, 3 * s, 7 * s},
			notices: []string{"had a server error; retrying in 1s.", "had a server error; retrying in 2s.",
				"is rate limiting requests (429); retrying in 4s."}},
		{name: "retries run out", errs: []error{statusErr(503, 0), statusErr(503, 0), statusErr(503, 0), statusErr(503, 0)},
			calls: []time.Duration{0, 1 * s, 3 * s, 7 * s}, err: "server error"},
		{name: "Retry-After replaces the backoff", errs: []error{statusErr(429, 5*s), statusErr(429, 0)},
			calls:   []time.Duration{0, 5 * s, 7 * s},
			notices: []string{"retrying in 5s, as it asked.", "retrying in 2s."}},
		{name: "Retry-After is capped", errs: []error{statusErr(503, time.Hour)},
			calls: []time.Duration{0, maxRetryWait}, notices: []string{"retrying in 1m0s, as it asked."}},
		{name: "cancel ends the wait", errs: []error{statusErr(503, time.Hour)}, cancelAt: 30 * s,
			calls: []time.Duration{0}, err: context.Canceled.Error()},
		{name: "no retry once streamed", errs: []error{statusErr(503, 0)}, streamed: true,
			calls: []time.Duration{0}, err: "server error"},
		{name: "no retry of a bad request", errs: []error{statusErr(400, 0)},
			calls: []time.Duration{0}, err: "refused the request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := &Agent{opts: Options{RetryDelay: s}, events: newEventQueue()}
				c := &flaky{errs: tt.errs, streamed: tt.streamed, start: time.Now()}
				ctx := t.Context()
				if tt.cancelAt > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					time.AfterFunc(tt.cancelAt, cancel)
				}
				reply, err := a.complete(ctx, c, llm.Request{Model: "m"}, "chat", func(llm.Delta) {})
				took := time.Since(c.start)
				a.events.close()

				switch {
				case tt.err == "" && (err != nil || reply.Text != "ok"):
					t.Errorf("complete = %q, %v; want the answer", reply.Text, err)
				case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
					t.Errorf("complete error %v, want %q", err, tt.err)
				}
				if fmt.Sprint(c.calls) != fmt.Sprint(tt.calls) {
					t.Errorf("calls at %v, want %v", c.calls, tt.calls)
				}
				if want := max(tt.calls[len(tt.calls)-1], tt.cancelAt); took != want {
					t.Errorf("complete returned after %s, want %s", took, want)
				}
				var notices []string
				for e := range a.events.out {
					if n, ok := e.(Notice); ok && n.ChatID == "chat" {
						notices = append(notices, n.Text)
					}
				}
				if tt.notices != nil && len(notices) != len(tt.notices) {
					t.Fatalf("notices %q, want %q", notices, tt.notices)
				}
				for i, want := range tt.notices {
					if !strings.HasSuffix(notices[i], want) {
						t.Errorf("notice %d = %q, want it to end %q", i, notices[i], want)
					}
				}
			})
		})
	}
}

// TestRetryWaitsQuietlyInTheBackground: a call of no chat (distillation)
// retries the same way without a Notice.
func TestRetryWaitsQuietlyInTheBackground(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := &Agent{opts: Options{RetryDelay: time.Second}, events: newEventQueue()}
		c := &flaky{errs: []error{statusErr(503, 0)}, start: time.Now()}
		if _, err := a.complete(t.Context(), c, llm.Request{}, "", nil); err != nil {
			t.Fatal(err)
		}
		a.events.close()
		if n := len(a.events.out); n != 0 {
			t.Errorf("%d events for a background call", n)
		}
		if fmt.Sprint(c.calls) != fmt.Sprint([]time.Duration{0, time.Second}) {
			t.Errorf("calls at %v", c.calls)
		}
	})
}

var _ llm.Completer = (*flaky)(nil)
