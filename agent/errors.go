package agent

import (
	"context"
	"errors"
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
// what to do, in English; Words says the same as a key and its arguments,
// for a window in another language; Err is the cause, for logs and
// errors.Is/As.
type Error struct {
	Code    Code
	Message string
	Words   Words
	Err     error
}

// newError is the failure code worded by key and its pairs of names and
// values (see words), caused by err.
func newError(code Code, err error, key Key, pairs ...any) *Error {
	w := words(key, pairs...)
	return &Error{Code: code, Message: w.English(), Words: w, Err: err}
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
	return ok && t.Code == e.Code && t.Message == "" && t.Words.Key == "" && t.Err == nil
}

// retryable reports whether the failure may go away by itself (429, 5xx).
func (e *Error) retryable() bool { return e.Code == CodeRateLimited || e.Code == CodeServer }

// errNoEndpoint is the error of a turn with no endpoint configured.
func errNoEndpoint() *Error { return newError(CodeNoEndpoint, nil, KeyNoEndpoint) }

// errNoModel is the error of a turn with an endpoint but no model.
func errNoModel(base string) *Error {
	return newError(CodeModelNotFound, nil, KeyNoModel, "Base", base)
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
	server := serverWords(msg)
	var te *llm.TimeoutError
	switch {
	case errors.As(err, &te) && te.FirstByte:
		return newError(CodeTimeout, err, KeyFirstByteTimeout, "After", te.After)
	case errors.As(err, &te):
		return newError(CodeTimeout, err, KeyIdleTimeout, "After", te.After)
	case errors.Is(err, llm.ErrInterrupted):
		return newError(CodeInterrupted, err, KeyInterrupted)
	case errors.Is(err, llm.ErrEmpty):
		return newError(CodeBadResponse, err, KeyEmptyAnswer)
	case isContextTooLong(status, lower):
		return newError(CodeContextTooLong, err, KeyContextTooLong, "Server", server)
	case isToolsUnsupported(status, lower):
		return newError(CodeToolsUnsupported, err, KeyToolsUnsupported, "Model", model, "Server", server)
	case status == http.StatusUnauthorized:
		return newError(CodeAuth, err, KeyKeyRejected)
	case status == http.StatusForbidden:
		return newError(CodeAuth, err, KeyForbidden)
	case status == http.StatusNotFound:
		return newError(CodeModelNotFound, err, KeyModelNotFound, "Model", model, "Server", server)
	case status == http.StatusTooManyRequests:
		return newError(CodeRateLimited, err, KeyRateLimited)
	case status >= 500:
		return newError(CodeServer, err, KeyServer, "Status", status)
	case status >= 400:
		return newError(CodeBadRequest, err, KeyRefused, "Status", status, "Server", server)
	case isUnreachable(err):
		return newError(CodeUnreachable, err, KeyUnreachable)
	}
	return newError(CodeBadResponse, err, KeyUnreadable)
}

// maxServerWords bounds the server's message quoted in an Error.
const maxServerWords = 300

// serverWords is the endpoint's own message as an Error quotes it
// (KeyServerSaid): on one line, at most maxServerWords bytes, without a
// final full stop; "" when it gave none.
func serverWords(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if msg == "" {
		return ""
	}
	if len(msg) > maxServerWords {
		msg = textcut.UTF8(msg, maxServerWords) + "…"
	}
	return strings.TrimRight(msg, ".")
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
