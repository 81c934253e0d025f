package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"engram/agent"
	"engram/agent/embedding"
	"engram/memory"
)

func init() {
	memorySubs["reindex"] = memoryReindex
}

// endpointEmbedder is the embedder of the endpoint's embedding model:
// model, or else semantic_recall of config.json. The endpoint and key are
// resolved as for engramctl chat (config.json, then OPENAI_BASE_URL,
// OPENAI_API_KEY); the vectors are cached in the state folder, as the
// app's.
func endpointEmbedder(ctx context.Context, env *cliEnv, model string) (*embedding.Embedder, error) {
	paths := enginePaths(env.Getenv)
	cfg, err := agent.ResolveConfig(ctx, paths, env.Getenv, nil)
	if err != nil {
		return nil, err
	}
	if model == "" {
		model = cfg.SemanticRecall
	}
	if model == "" || model == agent.SemanticBuiltin {
		return nil, errors.New("no embedding model is chosen: pass --model, or choose one in Settings → " +
			"Semantic recall (semantic_recall in config.json)")
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("no endpoint is configured: set it in Settings, or OPENAI_BASE_URL")
	}
	return embedding.New(ctx, embedding.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: model,
		CacheDir: paths.EmbeddingsDir()})
}

// memoryReindex implements `engramctl memory reindex`: it embeds every
// memory of the store with the endpoint's embedding model, as the app does
// in the background, printing its progress. What is embedded is cached in
// the state folder, so an interrupted run resumes where it stopped and the
// app sends none of it again.
func memoryReindex(r *memoryRun) func() int {
	model := r.flags.fs.String("model", "", "embedding model (default: semantic_recall of config.json)")
	return func() int {
		if len(r.args) > 0 {
			return r.usageError("reindex takes no arguments")
		}
		emb, err := endpointEmbedder(r.ctx, r.env, *model)
		if err != nil {
			return r.fail(err)
		}
		defer emb.Close()
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		p := newProgress(r.store.List(), emb, r.env.Stdout)
		p.report(true)
		r.store.SetEmbedder(p)
		if err := r.store.WaitSemantic(r.ctx); err != nil {
			return r.fail(err)
		}
		p.finish()
		fmt.Fprintf(r.env.Stdout, "%d texts sent to the endpoint, the rest from the cache\n", emb.Sent())
		return exitOK
	}
}

// progress wraps the embedder to count the memories embedded: a memory is
// done when the first of its chunks (its start) has a vector. The index
// embeds a memory's chunks together, so that is when all of them are.
type progress struct {
	*embedding.Embedder
	w     io.Writer
	total int
	whole map[string]struct{} // the texts of the memories short enough to be one chunk
	long  []string            // the texts of the others

	mu   sync.Mutex
	done int
	said int // done, when it was last printed
}

// oneChunk is the most runes a memory's text has when the index keeps it
// as a single chunk (memory/internal/index.ChunkRunes).
const oneChunk = 320

func newProgress(live []memory.Entry, emb *embedding.Embedder, w io.Writer) *progress {
	p := &progress{Embedder: emb, w: w, total: len(live), whole: map[string]struct{}{}}
	for _, e := range live {
		if utf8.RuneCountInString(e.Text) <= oneChunk {
			p.whole[e.Text] = struct{}{}
		} else {
			p.long = append(p.long, e.Text)
		}
	}
	return p
}

// Embed implements memory.Embedder.
func (p *progress) Embed(texts []string) ([][]float32, error) {
	vecs, err := p.Embedder.Embed(texts)
	if err != nil {
		return vecs, err
	}
	n := 0
	for _, t := range texts {
		if _, ok := p.whole[t]; ok {
			n++
			continue
		}
		for _, l := range p.long {
			if strings.HasPrefix(l, t) {
				n++
				break
			}
		}
	}
	p.mu.Lock()
	p.done = min(p.done+n, p.total)
	p.mu.Unlock()
	p.report(false)
	return vecs, nil
}

// report prints the progress: the first time, at the end, and when it
// moved by a hundredth or more.
func (p *progress) report(first bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !first && (p.done == p.said || p.done < p.total && (p.done-p.said)*100 < p.total) {
		return
	}
	fmt.Fprintf(p.w, "Indexing %d of %d memories\n", p.done, p.total)
	p.said = p.done
}

// finish prints the last line: every memory has its vectors.
func (p *progress) finish() {
	p.mu.Lock()
	p.done = p.total
	p.mu.Unlock()
	p.report(false)
}
