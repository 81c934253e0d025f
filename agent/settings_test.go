package agent_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

func TestConfigSourcesAndModelsAt(t *testing.T) {
	t.Parallel()
	file := agent.DefaultConfig()
	file.BaseURL = "http://file/v1"
	a, _ := envAgent(t, file, map[string]string{agent.EnvModel: "env-model", agent.EnvAPIKey: "sk-env-key-9876"})
	src := a.ConfigSources()
	if src.BaseURL != "" || src.APIKey != agent.EnvAPIKey || src.Model != agent.EnvModel || src.Detected {
		t.Fatalf("ConfigSources = %+v", src)
	}
	c := a.Config()
	c.Model = "chosen-model"
	if err := a.SetConfig(c); err != nil {
		t.Fatal(err)
	}
	if src := a.ConfigSources(); src.Model != "" || src.APIKey != agent.EnvAPIKey {
		t.Fatalf("after choosing a model in the app ConfigSources = %+v", src)
	}

	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	srv.Models = []string{"m1", "m2"}
	got, err := a.ModelsAt(context.Background(), srv.BaseURL(), "")
	if err != nil || !slices.Equal(got, []string{"m1", "m2"}) {
		t.Fatalf("ModelsAt = %q, %v", got, err)
	}
	if _, err := a.ModelsAt(context.Background(), "", ""); err == nil {
		t.Fatal("ModelsAt without an endpoint did not fail")
	}
}

// semantic chooses the model of semantic recall in the settings.
func semantic(t *testing.T, a *agent.Agent, model string) {
	t.Helper()
	c := a.Config()
	c.SemanticRecall = model
	if err := a.SetConfig(c); err != nil {
		t.Fatal(err)
	}
}

// semanticModelBecomes waits (a hang guard, not a timing) until the agent's
// semantic recall uses model.
func semanticModelBecomes(t *testing.T, a *agent.Agent, model string) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for a.SemanticModel() != model {
		if time.Now().After(deadline) {
			t.Fatalf("semantic recall uses %q after %s, want %q", a.SemanticModel(), guard, model)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSemanticRecallFromTheEndpoint(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *agent.Options) { o.Memory.Embedder = memory.Builtin() })
	h.srv.SetEmbedModels("embed-a")
	semantic(t, h.a, "embed-a")
	semanticModelBecomes(t, h.a, "embed-a")
	st := h.store(agent.ScopeGlobal, "")
	if _, _, err := st.Add(memory.Entry{Text: "the user's cat is called Mimi"}); err != nil {
		t.Fatal(err)
	}
	if err := st.WaitSemantic(context.Background()); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, r := range h.srv.EmbedRequests() {
		if r.Model != "embed-a" || r.Auth != "Bearer sk-test-key-1234" {
			t.Fatalf("embedding request with model %q auth %q", r.Model, r.Auth)
		}
		sent = append(sent, r.Inputs...)
	}
	if !slices.Contains(sent, "the user's cat is called Mimi") {
		t.Fatalf("the memory was not embedded by the endpoint: %q", sent)
	}
	files, _ := filepath.Glob(filepath.Join(h.paths.EmbeddingsDir(), "*.vec"))
	if len(files) != 1 {
		t.Fatalf("cache files in the state folder: %q", files)
	}
	if b, _ := os.ReadFile(h.paths.GlobalMemory()); bytes.Contains(b, []byte("embed-a")) {
		t.Fatal("memory.json holds something of the embeddings")
	}

	semantic(t, h.a, agent.SemanticBuiltin)
	semanticModelBecomes(t, h.a, memory.BuiltinModel)
}

func TestSemanticRecallFallsBackWithANotice(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *agent.Options) { o.Memory.Embedder = memory.Builtin() })
	h.srv.SetEmbedModels("embed-a")
	semantic(t, h.a, "gone-model")
	n := h.next(func(e agent.Event) bool {
		n, ok := e.(agent.Notice)
		return ok && n.Words.Key == agent.KeySemanticFallback
	}).(agent.Notice)
	if !strings.Contains(n.Text, "gone-model") {
		t.Fatalf("notice %q", n.Text)
	}
	if got := h.a.SemanticModel(); got != memory.BuiltinModel {
		t.Fatalf("after the failure semantic recall uses %q", got)
	}
	st := h.store(agent.ScopeGlobal, "")
	if _, _, err := st.Add(memory.Entry{Text: "the user plays the cello"}); err != nil {
		t.Fatal(err)
	}
	if hits := st.Search("cello", 3); len(hits) != 1 {
		t.Fatalf("recall after the fallback = %+v", hits)
	}

	// The model comes back: choosing it again in the settings uses it.
	h.srv.SetEmbedModels()
	semantic(t, h.a, agent.SemanticBuiltin)
	semantic(t, h.a, "gone-model")
	semanticModelBecomes(t, h.a, "gone-model")
}

func TestSemanticRecallFallsBackWhenTheModelDisappears(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, func(o *agent.Options) { o.Memory.Embedder = memory.Builtin() })
	semantic(t, h.a, "embed-a")
	semanticModelBecomes(t, h.a, "embed-a")
	st := h.store(agent.ScopeGlobal, "")
	if _, _, err := st.Add(memory.Entry{Text: "the user's cat is called Mimi"}); err != nil {
		t.Fatal(err)
	}
	if err := st.WaitSemantic(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.srv.SetEmbedModels("another-model")
	if _, _, err := st.Add(memory.Entry{Text: "the user plays the cello"}); err != nil {
		t.Fatal(err)
	}
	h.next(func(e agent.Event) bool {
		n, ok := e.(agent.Notice)
		return ok && n.Words.Key == agent.KeySemanticFallback
	})
	semanticModelBecomes(t, h.a, memory.BuiltinModel)
	if err := st.WaitSemantic(context.Background()); err != nil {
		t.Fatalf("the built-in model after the fallback: %v", err)
	}
	if hits := st.Search("cello", 3); len(hits) == 0 || hits[0].Entry.Text != "the user plays the cello" {
		t.Fatalf("recall after the fallback = %+v", hits)
	}
}
