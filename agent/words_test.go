package agent_test

import (
	"errors"
	"strings"
	"testing"
	"text/template"

	"engram/agent"
	"engram/agent/agenttest"
)

// Every wording is a valid template whose fields are filled: none reads
// "<no value>", and each field given shows in the English text.
func TestWordingsFill(t *testing.T) {
	for _, k := range agent.Keys() {
		text := agent.Wording(k)
		if text == "" {
			t.Errorf("%s: no wording", k)
			continue
		}
		if _, err := template.New("").Parse(text); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		args := map[string]string{}
		for _, f := range []string{"Base", "After", "Model", "Status", "Steps", "Wait", "Size", "Err", "Count",
			"Old", "New", "Path", "Entries", "Copies"} {
			if strings.Contains(text, "{{."+f+"}}") {
				args[f] = "«" + f + "»"
			}
		}
		got := agent.Words{Key: k, Args: args}.English()
		if strings.Contains(got, "{{") || strings.Contains(got, "<no value>") {
			t.Errorf("%s: %q is not filled", k, got)
		}
		for f, v := range args {
			if !strings.Contains(got, v) {
				t.Errorf("%s: %q lacks %s", k, got, f)
			}
		}
	}
}

// The parts worded apart join the wording: the server's own words, as
// they are, and a retry's "as it asked".
func TestWordsParts(t *testing.T) {
	w := agent.Words{Key: agent.KeyRefused, Args: map[string]string{"Status": "400", "Server": "max_tokens: 10 > 5"}}
	if got, want := w.English(), "The endpoint refused the request (400). The server said: max_tokens: 10 > 5"; got != want {
		t.Errorf("refusal = %q, want %q", got, want)
	}
	w = agent.Words{Key: agent.KeyRefused, Args: map[string]string{"Status": "400"}}
	if got, want := w.English(), "The endpoint refused the request (400)"; got != want {
		t.Errorf("refusal without the server's words = %q, want %q", got, want)
	}
	w = agent.Words{Key: agent.KeyRetryServer, Args: map[string]string{"Wait": "2s", "AsAsked": "yes"}}
	if got, want := w.English(), "The endpoint had a server error; retrying in 2s, as it asked."; got != want {
		t.Errorf("retry = %q, want %q", got, want)
	}
}

// TestErrorsAndNoticesCarryWords: against the fake server, a refusal, the
// retries of a failing endpoint and the error that ends them carry their
// key and arguments beside their English text, the server's own words
// among them as they are.
func TestErrorsAndNoticesCarryWords(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	h.srv.Push(agenttest.Reply{Status: 400, Message: "max_tokens is too large: 100000."})
	log := h.turn(h.newChat(), "hello")
	var ae *agent.Error
	if !errors.As(log.done.Err, &ae) || ae.Words.Key != agent.KeyRefused || ae.Words.Args["Status"] != "400" ||
		ae.Words.Args["Server"] != "max_tokens is too large: 100000" || ae.Message != ae.Words.English() {
		t.Fatalf("refusal: %#v", log.done.Err)
	}

	h.srv.Push(agenttest.Reply{Status: 500}, agenttest.Reply{Status: 500}, agenttest.Reply{Status: 500},
		agenttest.Reply{Status: 500})
	log = h.turn(h.newChat(), "hello")
	notices := of[agent.Notice](log.events)
	if len(notices) == 0 {
		t.Fatal("no retry notice")
	}
	for _, n := range notices {
		if n.Words.Key != agent.KeyRetryServer || n.Words.Args["Wait"] == "" || n.Text != n.Words.English() {
			t.Errorf("retry notice %#v", n)
		}
	}
	if !errors.As(log.done.Err, &ae) || ae.Words.Key != agent.KeyServer || ae.Words.Args["Status"] != "500" {
		t.Errorf("after the retries: %#v", log.done.Err)
	}
}
