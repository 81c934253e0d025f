package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	"engram/agent/internal/textcut"
	"engram/agent/llm"
)

// Code classifies an Error so callers can react to it.
type Code string

// The error codes. Message says the same thing in words for people.
const (
	CodeNoEndpoint       Code = "no_endpoint"       // nothing configured and no local server found
	CodeAuth             Code = "auth"              // 401/403: the key is missing, wrong or not allowed
	CodeModelNotFound    Code = "model_not_found"   // 404
	CodeRateLimited      Code = "rate_limited"      // 429 after the retries
	CodeServer           Code = "server"            // 5xx after the retries
	CodeUnreachable      Code = "unreachable"       // connection refused, DNS, timeout
	CodeContextTooLong   Code = "context_too_long"  // still too long after compaction
	CodeToolsUnsupported Code = "tools_unsupported" // the model rejects tools (retried without)
	CodeBadRequest       Code = "bad_request"       // any other 4xx
	CodeBadResponse      Code = "bad_response"      // a stream that was empty or did not parse
	CodeInterrupted      Code = "interrupted"       // the stream ended before the model finished
	CodeTimeout          Code = "timeout"           // the answer did not start, or went silent
)

// Error is a failure explained for people: Message says what happened and
// what to do; Err is the cause, for logs and errors.Is/As.
type Error struct {
	Code    Code
	Message string
	Err     error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Message
	}
	return e.Message + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same Code, so
// errors.Is(err, &agent.Error{Code: agent.CodeAuth}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == "" && t.Err == nil
}

// retryable reports whether the failure may go away by itself (429, 5xx).
func (e *Error) retryable() bool { return e.Code == CodeRateLimited || e.Code == CodeServer }

// errNoEndpoint is the error of a turn with no endpoint configured.
func errNoEndpoint() *Error {
	return &Error{Code: CodeNoEndpoint, Message: "No model endpoint is configured and no local server " +
		"(Ollama on 127.0.0.1:11434, LM Studio on 127.0.0.1:1234) answered. Set the endpoint and model in " +
		"Settings, or OPENAI_BASE_URL and ENGRAM_MODEL"}
}

// errNoModel is the error of a turn with an endpoint but no model.
func errNoModel(base string) *Error {
	return &Error{Code: CodeModelNotFound, Message: fmt.Sprintf("No model is chosen for %s. Pick one in "+
		"Settings, or set ENGRAM_MODEL", base)}
}

// classify turns an error from the provider into an *Error. Context errors
// (cancellation) are returned unchanged, as are errors already classified.
func classify(err error, model string) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var ae *Error
	if errors.As(err, &ae) {
		return err
	}
	status, msg, code := 0, "", ""
	var se *llm.StatusError
	if errors.As(err, &se) {
		status, msg, code = se.Status, se.Message, se.Code
	}
	lower := strings.ToLower(msg + " " + code)
	var te *llm.TimeoutError
	switch {
	case errors.As(err, &te) && te.FirstByte:
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("The endpoint did not start answering within %s. "+
			"The server may be overloaded or still loading the model; try again, or raise first_byte_timeout "+
			"in config.json", te.After), Err: err}
	case errors.As(err, &te):
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("The endpoint stopped sending for %s, so the "+
			"answer was ended there. What arrived is kept; Retry asks again (stream_idle_timeout in config.json "+
			"sets the wait)", te.After), Err: err}
	case errors.Is(err, llm.ErrInterrupted):
		return &Error{Code: CodeInterrupted, Message: "The answer broke off before the model finished (the " +
			"stream ended without a finish reason). What arrived is kept; Retry asks again", Err: err}
	case errors.Is(err, llm.ErrEmpty):
		return &Error{Code: CodeBadResponse, Message: "The endpoint sent an empty answer (the stream closed " +
			"with nothing in it). Try again; if it keeps happening, check the server's log", Err: err}
	case isContextTooLong(status, lower):
		return &Error{Code: CodeContextTooLong, Message: "The conversation is longer than the model's context " +
			"window. Start a new chat or choose a model with a larger context" + serverSaid(msg), Err: err}
	case isToolsUnsupported(status, lower):
		return &Error{Code: CodeToolsUnsupported, Message: fmt.Sprintf("The model %s does not support tools; "+
			"memory tools are off for this answer", model) + serverSaid(msg), Err: err}
	case status == http.StatusUnauthorized:
		return &Error{Code: CodeAuth, Message: "The endpoint rejected the API key (401). Check the key in " +
			"Settings or OPENAI_API_KEY", Err: err}
	case status == http.StatusForbidden:
		return &Error{Code: CodeAuth, Message: "The API key is not allowed to use this model or endpoint " +
			"(403). Check the key and its permissions", Err: err}
	case status == http.StatusNotFound:
		return &Error{Code: CodeModelNotFound, Message: fmt.Sprintf("The model %q was not found (404). Check "+
			"the model name and the base URL (it usually ends in /v1)", model) + serverSaid(msg), Err: err}
	case status == http.StatusTooManyRequests:
		return &Error{Code: CodeRateLimited, Message: "The endpoint is rate limiting requests (429) and still " +
			"was after several retries. Wait a minute and try again, or check your plan's limits", Err: err}
	case status >= 500:
		return &Error{Code: CodeServer, Message: fmt.Sprintf("The endpoint failed with a server error (%d), "+
			"also on retry. Try again later", status), Err: err}
	case status >= 400:
		return &Error{Code: CodeBadRequest, Message: fmt.Sprintf("The endpoint refused the request (%d)", status) +
			serverSaid(msg), Err: err}
	case isUnreachable(err):
		return &Error{Code: CodeUnreachable, Message: "The model endpoint cannot be reached (connection " +
			"refused or timed out). Check that the server is running and the base URL is right", Err: err}
	}
	return &Error{Code: CodeBadResponse, Message: "The endpoint's answer broke off or could not be read", Err: err}
}

// maxServerWords bounds the server's message quoted in an Error.
const maxServerWords = 300

// serverSaid quotes the endpoint's own message, as ". The server said: …",
// or "" when it gave none.
func serverSaid(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if msg == "" {
		return ""
	}
	if len(msg) > maxServerWords {
		msg = textcut.UTF8(msg, maxServerWords) + "…"
	}
	return ". The server said: " + strings.TrimRight(msg, ".")
}

// isContextTooLong recognises the context-length errors of OpenAI, vLLM,
// llama.cpp, Ollama and LM Studio.
func isContextTooLong(status int, lower string) bool {
	if status == http.StatusRequestEntityTooLarge {
		return true
	}
	if status != 0 && status != http.StatusBadRequest && status != http.StatusUnprocessableEntity && status < 500 {
		return false
	}
	for _, s := range []string{"context_length_exceeded", "context length", "maximum context", "context window",
		"context size", "too many tokens", "prompt is too long", "prompt too long", "exceeds the available context",
		"reduce the length"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

// isToolsUnsupported recognises "this model does not support tools" as
// Ollama, vLLM and others word it.
func isToolsUnsupported(status int, lower string) bool {
	if status != 0 && status != http.StatusBadRequest && status != http.StatusNotFound && status != http.StatusUnprocessableEntity &&
		status != http.StatusNotImplemented && status != http.StatusInternalServerError {
		return false
	}
	if !strings.Contains(lower, "tool") && !strings.Contains(lower, "function call") {
		return false
	}
	for _, s := range []string{"not support", "unsupported", "does not support", "not enabled", "not allowed",
		"no support", "enable-auto-tool-choice"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

// isUnreachable reports a failure to connect or a timeout.
func isUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	return errors.As(err, &dnsErr) || (errors.As(err, &opErr) && opErr.Op == "dial")
}
