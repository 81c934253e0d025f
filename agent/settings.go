package agent

import (
	"context"
	"errors"
	"strings"
	"sync"

	"engram/agent/embedding"
	"engram/memory"
)

// ConfigSources says where the endpoint, key and model in use come from.
type ConfigSources struct {
	// BaseURL, APIKey and Model name the environment variable each comes
	// from (OPENAI_BASE_URL, OPENAI_API_KEY, ENGRAM_MODEL), "" when it
	// does not come from the environment.
	BaseURL, APIKey, Model string
	// Detected is set when the endpoint in use is a local server found at
	// start, neither configured nor from the environment.
	Detected bool
}

// ConfigSources reports which of the values in use come from the
// environment or were detected, so the settings can say so.
func (a *Agent) ConfigSources() ConfigSources {
	a.cfgMu.Lock()
	src := a.src
	a.cfgMu.Unlock()
	cur := a.Config()
	var out ConfigSources
	names := [len(envFields)]*string{&out.BaseURL, &out.APIKey, &out.Model}
	for i, f := range envFields {
		if src.env[i] != "" && !src.chosen[i] && *f.field(&cur) == src.env[i] {
			*names[i] = f.env
		}
	}
	out.Detected = out.BaseURL == "" && src.fallback[0] != "" && cur.BaseURL == src.fallback[0]
	return out
}

// ModelsAt lists the models of an endpoint that is not (yet) the
// configured one, so the settings can offer them before they are saved.
func (a *Agent) ModelsAt(ctx context.Context, baseURL, apiKey string) ([]string, error) {
	baseURL = strings.TrimSpace(baseURL)
	if baseURL == "" {
		return nil, errNoEndpoint()
	}
	c := a.Config()
	c.BaseURL, c.APIKey = baseURL, apiKey
	ids, err := a.opts.Connect(c.endpoint()).Models(ctx)
	if err != nil {
		return nil, classify(err, "")
	}
	return ids, nil
}

// SemanticBuiltin is the Config.SemanticRecall of the built-in model.
const SemanticBuiltin = "builtin"

// semanticState is the embedder semantic recall uses and the one the
// config asks for. Each change of what is asked starts a new generation;
// what an older one finds out afterwards is dropped.
type semanticState struct {
	mu      sync.Mutex
	applied bool
	want    semanticWant
	gen     int
	emb     memory.Embedder       // nil: Options.Memory.Embedder
	opened  []*embedding.Embedder // closed with the agent
	wg      sync.WaitGroup        // the goroutines that set it up and watch it
	current *embedding.Embedder   // the endpoint's embedder in use, if any
}

// semanticWant is the endpoint embedding model the config asks for; the
// zero value is the built-in model.
type semanticWant struct{ base, key, model string }

func semanticOf(c Config) semanticWant {
	m := strings.TrimSpace(c.SemanticRecall)
	if m == "" || m == SemanticBuiltin || c.BaseURL == "" {
		return semanticWant{}
	}
	return semanticWant{c.BaseURL, c.APIKey, m}
}

// embedder is the embedder a store opened now gets.
func (a *Agent) embedder() memory.Embedder {
	a.sem.mu.Lock()
	defer a.sem.mu.Unlock()
	if a.sem.emb == nil {
		return a.opts.Memory.Embedder
	}
	return a.sem.emb
}

// applySemantic makes the stores embed with the model c.SemanticRecall
// names. An endpoint's model is set up in the background (its cache
// opened, its dimension learnt); until it is ready, and whenever it fails,
// the stores use Options.Memory.Embedder (the built-in model), with a
// notice for the failure. Nothing changes when c asks for what is in use.
func (a *Agent) applySemantic(c Config) {
	want := semanticOf(c)
	a.sem.mu.Lock()
	if a.ctx.Err() != nil || a.sem.applied && want == a.sem.want {
		a.sem.mu.Unlock()
		return
	}
	a.sem.applied, a.sem.want = true, want
	a.sem.gen++
	gen := a.sem.gen
	a.sem.wg.Add(1)
	a.sem.mu.Unlock()
	if want.model == "" {
		a.useEmbedder(gen, nil)
		a.sem.wg.Done()
		return
	}
	go func() {
		defer a.sem.wg.Done()
		e, err := embedding.New(a.ctx, embedding.Config{BaseURL: want.base, APIKey: want.key, Model: want.model,
			CacheDir: a.opts.Paths.EmbeddingsDir(), HTTPClient: a.opts.HTTPClient})
		if err != nil {
			a.semanticFailed(gen, want.model, err)
			return
		}
		a.sem.mu.Lock()
		a.sem.opened = append(a.sem.opened, e)
		a.sem.mu.Unlock()
		if a.useEmbedder(gen, e) {
			for _, ss := range a.openStores() {
				a.watchSemantic(ss)
			}
		}
	}()
}

// SemanticChanged reports that semantic recall embeds with another model
// (Model; "" for words only): the open stores compute their vectors again
// in the background, and memory.Store.SemanticProgress says how far each
// is. It may come at any time.
type SemanticChanged struct {
	Model string
}

// Chat implements Event.
func (SemanticChanged) Chat() string { return "" }

// useEmbedder gives the open stores e (nil: Options.Memory.Embedder),
// unless gen is no longer the current generation, and reports a change of
// model with SemanticChanged.
func (a *Agent) useEmbedder(gen int, e *embedding.Embedder) bool {
	a.sem.mu.Lock()
	if gen != a.sem.gen {
		a.sem.mu.Unlock()
		return false
	}
	was := modelOf(a.sem.emb)
	if a.sem.emb == nil {
		was = modelOf(a.opts.Memory.Embedder)
	}
	a.sem.current = e
	a.sem.emb = a.opts.Memory.Embedder
	if e != nil {
		a.sem.emb = e
	}
	emb := a.sem.emb
	a.sem.mu.Unlock()
	for _, ss := range a.openStores() {
		ss.st.SetEmbedder(emb)
	}
	if m := modelOf(emb); m != was {
		a.emit(SemanticChanged{Model: m})
	}
	return true
}

// modelOf is the Model of e, "" for none.
func modelOf(e memory.Embedder) string {
	if e == nil {
		return ""
	}
	return e.Model()
}

// semanticFailed falls back to the built-in model after the endpoint's
// failed, with a notice; the endpoint is asked again when the setting
// changes or at the next start.
func (a *Agent) semanticFailed(gen int, model string, err error) {
	a.sem.mu.Lock()
	if gen != a.sem.gen || a.ctx.Err() != nil {
		a.sem.mu.Unlock()
		return
	}
	a.sem.gen++ // the failures of the other stores are not reported again
	gen = a.sem.gen
	a.sem.mu.Unlock()
	if a.useEmbedder(gen, nil) {
		a.notice("", KeySemanticFallback, "Model", model, "Err", err)
	}
}

// watchSemantic waits in the background for the store's vectors from the
// endpoint's model in use, and falls back to the built-in model if they
// fail. One goroutine per store watches; a change meanwhile makes it wait
// again.
func (a *Agent) watchSemantic(ss *storeState) {
	a.sem.mu.Lock()
	e, gen := a.sem.current, a.sem.gen
	if e == nil {
		a.sem.mu.Unlock()
		return
	}
	ss.mu.Lock()
	if ss.semWatching {
		ss.semAgain = true
		ss.mu.Unlock()
		a.sem.mu.Unlock()
		return
	}
	ss.semWatching = true
	ss.mu.Unlock()
	a.sem.wg.Add(1)
	a.sem.mu.Unlock()
	go func() {
		defer a.sem.wg.Done()
		for {
			if err := ss.st.WaitSemantic(a.ctx); err != nil {
				a.semanticFailed(gen, e.Model(), err)
			}
			ss.mu.Lock()
			again := ss.semAgain && a.ctx.Err() == nil
			ss.semAgain, ss.semWatching = false, again
			ss.mu.Unlock()
			if !again {
				return
			}
		}
	}()
}

// openStores are the global store and the project stores open now.
func (a *Agent) openStores() []*storeState {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []*storeState{a.global}
	for _, p := range a.projects {
		if p.store != nil {
			out = append(out, p.store)
		}
	}
	return out
}

// closeSemantic waits for the goroutines of semantic recall (the agent's
// context is cancelled) and closes the endpoint embedders' caches.
func (a *Agent) closeSemantic() error {
	a.sem.wg.Wait()
	a.sem.mu.Lock()
	defer a.sem.mu.Unlock()
	var errs []error
	for _, e := range a.sem.opened {
		errs = append(errs, e.Close())
	}
	a.sem.opened = nil
	return errors.Join(errs...)
}

// SemanticModel is the model semantic recall embeds with now: the
// endpoint's once it is set up, else the built-in one ("" with none).
func (a *Agent) SemanticModel() string { return modelOf(a.embedder()) }
