// Package embedding is semantic recall's embedder from the endpoint: a
// memory.Embedder that asks an OpenAI-compatible endpoint's /v1/embeddings
// (Ollama, LM Studio, vLLM, OpenAI; through go-openai) for the vectors of
// texts, in batches, and keeps them in a cache file in the state folder
// keyed by model and content hash (sha256), so that a restart or a
// re-index sends only the texts it has not embedded yet, and a change of
// model embeds everything again. The cache keeps what is used: a vector
// not looked up for 30 days is stale, and once stale vectors are most of
// the file it is rewritten without them; the cache files of models no
// longer chosen go after 30 days (compact.go says why and when). The app
// and engramctl may share a cache file: each sees what the other added.
//
// Texts go to the configured endpoint only and are never logged; errors
// say what failed, not what was sent.
package embedding

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"engram/memory"
)

// Defaults of the Config.
const (
	DefaultBatchSize    = 64
	DefaultQueryTimeout = 5 * time.Second
	DefaultBatchTimeout = 2 * time.Minute
)

// queryTexts is the most texts a query asks for at once: the message and
// its history (memory's query vector takes eight earlier messages). A call
// with no more texts than that gets the query timeout.
const queryTexts = 9

// probeText is what New embeds to learn the model's dimension when no
// vector is cached: a fixed text, nothing of the person's.
const probeText = "semantic recall"

// Config is where and how to embed.
type Config struct {
	BaseURL string // the endpoint, ".../v1"
	APIKey  string // may be empty
	Model   string // the embedding model, as the endpoint lists it
	// CacheDir holds the cache files, one per model ("": no cache).
	CacheDir string
	// HTTPClient carries the requests (nil: one with a connect timeout).
	HTTPClient *http.Client
	// BatchSize is the most texts per request (default 64).
	BatchSize int
	// QueryTimeout bounds a query's request (default 5s): a turn waits for
	// it. BatchTimeout bounds each request of a batch (default 2 min: a
	// local server may load the model first).
	QueryTimeout, BatchTimeout time.Duration
}

// Embedder embeds texts with the endpoint's model; it implements
// memory.Embedder and is safe for concurrent use.
type Embedder struct {
	cfg    Config
	client *goopenai.Client
	cache  *cache // nil without Config.CacheDir
	dim    atomic.Int64
	// batches serialises the requests of batches, so that indexing several
	// stores does not crowd the endpoint; queries do not wait for it.
	batches sync.Mutex
	// sent counts the texts sent to the endpoint.
	sent atomic.Int64
}

var _ memory.Embedder = (*Embedder)(nil)

// New returns the embedder of cfg. It learns the model's dimension from
// the cache, or else by embedding a fixed probe text, so it fails when the
// endpoint cannot embed with the model.
func New(ctx context.Context, cfg Config) (*Embedder, error) {
	cfg.BaseURL = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	cfg.Model = strings.TrimSpace(cfg.Model)
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("embedding: an endpoint and a model are required")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.BatchTimeout <= 0 {
		cfg.BatchTimeout = DefaultBatchTimeout
	}
	oc := goopenai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = sameOriginOnly(cfg.HTTPClient)
	e := &Embedder{cfg: cfg, client: goopenai.NewClientWithConfig(oc)}
	if cfg.CacheDir != "" {
		c, err := openCache(cfg.CacheDir, cfg.Model, time.Now)
		if err != nil {
			return nil, fmt.Errorf("embedding with %s: %w", cfg.Model, err)
		}
		e.cache = c
		e.dim.Store(int64(c.Dim()))
	}
	if e.dim.Load() == 0 {
		pctx, cancel := context.WithTimeout(ctx, cfg.BatchTimeout)
		vecs, err := e.request(pctx, []string{probeText})
		cancel()
		if err != nil {
			_ = e.Close()
			return nil, err
		}
		e.dim.Store(int64(len(vecs[0])))
	}
	return e, nil
}

// Model implements memory.Embedder: the configured model's name.
func (e *Embedder) Model() string { return e.cfg.Model }

// Dim implements memory.Embedder.
func (e *Embedder) Dim() int { return int(e.dim.Load()) }

// Sent is how many texts were sent to the endpoint so far (the probe
// included); the rest came from the cache.
func (e *Embedder) Sent() int { return int(e.sent.Load()) }

// Close closes the cache file.
func (e *Embedder) Close() error {
	if e.cache == nil {
		return nil
	}
	return e.cache.Close()
}

// Embed implements memory.Embedder: the cached vectors are read, the
// others asked of the endpoint in requests of at most BatchSize texts and
// cached. A blank text has no vector (nil). An error of the endpoint, or
// an answer that does not fit (another dimension than the model's), is
// returned; the vectors of the requests before it stay cached. A call of
// a few texts (a query with its history, or one memory) that outlasts the
// query timeout returns without the vectors it waited for (nil), so that a
// turn is recalled by words and a memory waits for its vector until the
// next start, instead of semantic recall stopping for the whole store.
func (e *Embedder) Embed(texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var keys, hits []key
	where := map[key][]int{} // the indexes in texts of each missing text
	if e.cache != nil {
		if err := e.cache.refresh(); err != nil {
			return nil, fmt.Errorf("embedding with %s: %w", e.cfg.Model, err)
		}
		e.cache.compactDaily()
	}
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		k := key(sha256.Sum256([]byte(t)))
		if e.cache != nil {
			v, ok, err := e.cache.get(k)
			if err != nil {
				return nil, fmt.Errorf("embedding with %s: %w", e.cfg.Model, err)
			}
			if ok {
				out[i], hits = v, append(hits, k)
				continue
			}
		}
		if _, ok := where[k]; !ok {
			missing, keys = append(missing, t), append(keys, k)
		}
		where[k] = append(where[k], i)
	}
	if len(hits) > 0 {
		e.cache.touch(hits)
	}
	timeout := e.cfg.BatchTimeout
	if len(texts) <= queryTexts {
		timeout = e.cfg.QueryTimeout
	} else {
		e.batches.Lock()
		defer e.batches.Unlock()
	}
	for start := 0; start < len(missing); start += e.cfg.BatchSize {
		end := min(start+e.cfg.BatchSize, len(missing))
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		vecs, err := e.request(ctx, missing[start:end])
		timedOut := ctx.Err() == context.DeadlineExceeded
		cancel()
		if err != nil && timedOut && len(texts) <= queryTexts {
			return out, nil // no vector for what is late, rather than no semantic recall at all
		}
		if err != nil {
			return nil, err
		}
		if err := e.keep(keys[start:end], vecs); err != nil {
			return nil, err
		}
		for j, v := range vecs {
			for _, i := range where[keys[start+j]] {
				out[i] = v
			}
		}
	}
	return out, nil
}

// keep checks the vectors' dimension against the model's and caches them.
// Another dimension means the model behind the name changed: its cache is
// emptied, so that the next New learns the new one.
func (e *Embedder) keep(keys []key, vecs [][]float32) error {
	dim := e.Dim()
	for _, v := range vecs {
		if len(v) != dim {
			if e.cache != nil {
				_ = e.cache.reset()
			}
			return fmt.Errorf("embedding with %s: the endpoint answered vectors of %d values, the model had %d",
				e.cfg.Model, len(v), dim)
		}
	}
	if e.cache == nil {
		return nil
	}
	if err := e.cache.put(keys, vecs); err != nil {
		return fmt.Errorf("embedding with %s: %w", e.cfg.Model, err)
	}
	return nil
}

// request asks the endpoint for the vectors of texts, in their order.
func (e *Embedder) request(ctx context.Context, texts []string) ([][]float32, error) {
	e.sent.Add(int64(len(texts)))
	resp, err := e.client.CreateEmbeddings(ctx, goopenai.EmbeddingRequestStrings{
		Input: texts, Model: goopenai.EmbeddingModel(e.cfg.Model)})
	if err != nil {
		return nil, fmt.Errorf("embedding with %s at %s: %w", e.cfg.Model, e.cfg.BaseURL, err)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("embedding with %s at %s: %d vectors for %d texts", e.cfg.Model, e.cfg.BaseURL,
			len(resp.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embedding with %s at %s: the answer's vectors are not one per text",
				e.cfg.Model, e.cfg.BaseURL)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// defaultHTTPClient gives up on endpoints that do not connect or answer;
// each request also has its own timeout.
var defaultHTTPClient = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	ForceAttemptHTTP2:     true,
	MaxIdleConns:          4,
	IdleConnTimeout:       90 * time.Second,
	TLSHandshakeTimeout:   10 * time.Second,
	ResponseHeaderTimeout: DefaultBatchTimeout,
}}

// sameOriginOnly returns a copy of c (nil: defaultHTTPClient) that follows
// no redirect to another scheme, host or port, so the texts and the key go
// to the configured endpoint only.
func sameOriginOnly(c *http.Client) *http.Client {
	if c == nil {
		c = defaultHTTPClient
	}
	out := *c
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			return fmt.Errorf("the endpoint redirected to another server (%s)", req.URL.Host)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &out
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}
