package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"engram/agent/llm"
)

// transport wraps the HTTP client's transport to learn, for each request
// that Complete makes, what go-openai does not say: the Retry-After header
// of an error answer, when bytes of the answer arrive (for the first-byte
// and idle timeouts) and whether the stream ended with "data: [DONE]".
// Complete puts a *watch in the request's context; other requests pass
// through untouched.
type transport struct {
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	w, _ := req.Context().Value(watchKey{}).(*watch)
	if err != nil || w == nil {
		return resp, err
	}
	if resp.StatusCode >= 400 {
		w.setRetryAfter(resp.Header.Get("Retry-After"))
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, w: w}
	return resp, nil
}

// withTransport returns a copy of c whose transport reports to the watch
// of each request, and whose redirects drop the Authorization header when
// they change scheme, host or port (Go drops it only when the host
// changes, so a redirect to another port of the same host would get it).
func withTransport(c *http.Client) *http.Client {
	out := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = &transport{base: base}
	next := c.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &out
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

type watchKey struct{}

// watch follows one streamed request: it ends it through cancel when the
// first byte or, after it, the next byte is late, and notes the
// Retry-After of an error answer and the [DONE] line of a stream.
type watch struct {
	cancel context.CancelCauseFunc
	idle   time.Duration

	mu         sync.Mutex
	timer      *time.Timer
	cause      error // what the timer's firing means
	started    bool
	retryAfter string
	line       []byte // the current line, while it is short enough to be [DONE]
	long       bool   // the current line is longer than that
	done       bool   // a "data: [DONE]" line went by
}

// newWatch starts the first-byte timer of a request (none when first is 0)
// and returns the context to send the request with.
func newWatch(ctx context.Context, first, idle time.Duration) (context.Context, *watch, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watch{cancel: cancel, idle: idle}
	if first > 0 {
		w.cause = &llm.TimeoutError{FirstByte: true, After: first}
		w.timer = time.AfterFunc(first, w.fire)
	}
	return context.WithValue(ctx, watchKey{}, w), w, cancel
}

func (w *watch) fire() {
	w.mu.Lock()
	cause := w.cause
	w.mu.Unlock()
	w.cancel(cause)
}

// stop stops the timer.
func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// got notes bytes of the answer: the idle timer starts over.
func (w *watch) got(p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		w.started = true
		w.cause = &llm.TimeoutError{After: w.idle}
		if w.timer != nil && w.idle <= 0 {
			w.timer.Stop()
		}
	}
	if w.idle > 0 {
		if w.timer == nil {
			w.timer = time.AfterFunc(w.idle, w.fire)
		} else {
			w.timer.Reset(w.idle)
		}
	}
	w.scan(p)
}

// scan looks for a "data: [DONE]" line in the stream's bytes.
func (w *watch) scan(p []byte) {
	const maxLine = 32
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if !w.long && len(w.line)+len(seg) <= maxLine {
			w.line = append(w.line, seg...)
		} else {
			w.long = true
		}
		if i < 0 {
			return
		}
		w.endLine()
		p = p[i+1:]
	}
}

func (w *watch) endLine() {
	if line := bytes.TrimSpace(w.line); !w.long && bytes.HasPrefix(line, []byte("data:")) &&
		string(bytes.TrimSpace(line[len("data:"):])) == "[DONE]" {
		w.done = true
	}
	w.line, w.long = w.line[:0], false
}

// sawDone reports whether the stream sent its [DONE] line.
func (w *watch) sawDone() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

func (w *watch) setRetryAfter(v string) {
	w.mu.Lock()
	w.retryAfter = v
	w.mu.Unlock()
}

// retryAfterValue is the Retry-After the error answer gave, as a wait
// from now (0 when it gave none).
func (w *watch) retryAfterValue(now time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return parseRetryAfter(w.retryAfter, now)
}

// parseRetryAfter reads a Retry-After value: seconds, or an HTTP date.
// Anything else, and a time already past, is 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e9 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// watchedBody reports what it reads to its watch.
type watchedBody struct {
	io.ReadCloser
	w *watch
}

// Read implements io.Reader.
func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.got(p[:n])
	}
	if err == io.EOF {
		b.w.mu.Lock()
		b.w.endLine()
		b.w.mu.Unlock()
	}
	return n, err
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
