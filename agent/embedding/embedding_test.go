package embedding_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/agent/agenttest"
	"engram/agent/embedding"
	"engram/memory"
)

func TestMain(m *testing.M) { os.Exit(agenttest.RunInTempHome(m)) }

func newServer(t *testing.T) *agenttest.Server {
	t.Helper()
	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

func newEmbedder(t *testing.T, srv *agenttest.Server, model, dir string) *embedding.Embedder {
	t.Helper()
	e, err := embedding.New(context.Background(), embedding.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test-1234",
		Model: model, CacheDir: dir, HTTPClient: srv.Client(), BatchSize: 4})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("memory number %d about topic %d", i, i%3)
	}
	return out
}

func TestEmbedBatchesAndMatchesTheServer(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.EmbedDim = 48
	e := newEmbedder(t, srv, "embed-a", t.TempDir())
	if e.Dim() != 48 || e.Model() != "embed-a" {
		t.Fatalf("Dim, Model = %d, %q", e.Dim(), e.Model())
	}
	in := append(texts(10), "", "   ", "memory number 3 about topic 0") // blanks, and a repeat
	got, err := e.Embed(in)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range in {
		switch {
		case strings.TrimSpace(text) == "":
			if got[i] != nil {
				t.Errorf("blank text %d has a vector", i)
			}
		case !slices.Equal(got[i], agenttest.BagOfWords("embed-a", text, 48)):
			t.Errorf("vector %d is not the server's", i)
		}
	}
	reqs := srv.EmbedRequests()
	// The probe, then 10 distinct texts in requests of at most 4.
	if len(reqs) != 4 || len(reqs[1].Inputs) != 4 || len(reqs[3].Inputs) != 2 || srv.EmbeddedTexts() != 11 {
		t.Fatalf("requests: %d, texts %d", len(reqs), srv.EmbeddedTexts())
	}
	if reqs[1].Model != "embed-a" || reqs[1].Auth != "Bearer sk-test-1234" {
		t.Fatalf("request model %q auth %q", reqs[1].Model, reqs[1].Auth)
	}
}

func TestCacheSurvivesARestartAndIsPerModel(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	dir := t.TempDir()
	in := texts(20)
	first := newEmbedder(t, srv, "embed-a", dir)
	want, err := first.Embed(in)
	if err != nil {
		t.Fatal(err)
	}
	_ = first.Close()
	sent := srv.EmbeddedTexts()

	again := newEmbedder(t, srv, "embed-a", dir)
	got, err := again.Embed(in)
	if err != nil {
		t.Fatal(err)
	}
	if srv.EmbeddedTexts() != sent || again.Sent() != 0 {
		t.Fatalf("the restart sent %d texts, want none", srv.EmbeddedTexts()-sent)
	}
	for i := range in {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("cached vector %d differs", i)
		}
	}
	// One new text: only it is sent.
	if _, err := again.Embed(append(in, "a new memory")); err != nil {
		t.Fatal(err)
	}
	if n := srv.EmbeddedTexts() - sent; n != 1 {
		t.Fatalf("a new text among cached ones sent %d texts, want 1", n)
	}

	other := newEmbedder(t, srv, "embed-b", dir)
	sent = srv.EmbeddedTexts()
	vb, err := other.Embed(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.EmbeddedTexts() - sent; n != len(in) {
		t.Fatalf("another model sent %d texts, want %d", n, len(in))
	}
	if slices.Equal(vb[0], want[0]) {
		t.Fatal("another model answered from the first model's cache")
	}
}

func TestCacheCutShortKeepsWholeRecords(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	dir := t.TempDir()
	e := newEmbedder(t, srv, "embed-a", dir)
	in := texts(8)
	if _, err := e.Embed(in); err != nil {
		t.Fatal(err)
	}
	_ = e.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*.vec"))
	if len(files) != 1 {
		t.Fatalf("cache files %q", files)
	}
	fi, _ := os.Stat(files[0])
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("cache mode %v, want 0600", fi.Mode().Perm())
	}
	if err := os.Truncate(files[0], fi.Size()-10); err != nil { // a crash in the last write
		t.Fatal(err)
	}
	sent := srv.EmbeddedTexts()
	again := newEmbedder(t, srv, "embed-a", dir)
	got, err := again.Embed(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.EmbeddedTexts() - sent; n != 1 {
		t.Fatalf("after a cut record %d texts were sent, want 1", n)
	}
	if !slices.Equal(got[7], agenttest.BagOfWords("embed-a", in[7], 32)) {
		t.Fatal("the re-embedded vector is wrong")
	}

	if err := os.WriteFile(files[0], []byte("not a cache\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := embedding.New(context.Background(), embedding.Config{BaseURL: srv.BaseURL(), Model: "embed-a",
		CacheDir: dir, HTTPClient: srv.Client()}); err != nil {
		t.Fatalf("a cache that does not parse is not started over: %v", err)
	}
}

func TestFailuresAreErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.EmbedModels = []string{"embed-a"}
	if _, err := embedding.New(context.Background(), embedding.Config{BaseURL: srv.BaseURL(), Model: "gone",
		HTTPClient: srv.Client()}); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("New with a model the endpoint lacks: %v", err)
	}
	if _, err := embedding.New(context.Background(), embedding.Config{Model: "embed-a"}); err == nil {
		t.Fatal("New without an endpoint did not fail")
	}
	e := newEmbedder(t, srv, "embed-a", t.TempDir())
	srv.FailEmbeddings(http.StatusInternalServerError)
	secret := "my secret diary text"
	_, err := e.Embed([]string{secret})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("Embed against a failing endpoint: %v", err)
	}
	srv.FailEmbeddings(0)
	srv.SetEmbedDim(16)
	if _, err := e.Embed([]string{"another text"}); err == nil || !strings.Contains(err.Error(), "16") {
		t.Fatalf("Embed answered in another dimension: %v", err)
	}
}

func TestTimeouts(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cfg := embedding.Config{BaseURL: srv.BaseURL(), Model: "embed-a", HTTPClient: srv.Client(),
		CacheDir: t.TempDir(), QueryTimeout: 50 * time.Millisecond}
	query, err := embedding.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QueryTimeout, cfg.BatchTimeout = time.Hour, 50*time.Millisecond
	batch, err := embedding.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := query.Embed([]string{"an earlier message"}); err != nil {
		t.Fatal(err)
	}
	srv.DelayEmbeddings(time.Minute)
	got, err := query.Embed([]string{"a query", "an earlier message"})
	if err != nil || got[0] != nil || got[1] == nil {
		t.Fatalf("a query the endpoint does not answer in time: %v, vectors %v", err, got)
	}
	if _, err := batch.Embed(texts(20)); err == nil {
		t.Fatal("a batch the endpoint does not answer in time did not fail")
	}
}

// TestStoreRecallsThroughTheEndpoint runs the store's semantic recall on
// the endpoint's vectors: a restart embeds nothing again, and a failing
// endpoint leaves recall by words.
func TestStoreRecallsThroughTheEndpoint(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	dir := t.TempDir()
	ctx := context.Background()
	open := func() (*memory.Store, *embedding.Embedder) {
		e := newEmbedder(t, srv, "embed-a", dir)
		st := memory.NewInMemory(memory.Options{Embedder: e})
		for _, text := range []string{"the user's dog is called Rex", "the user lives in Lyon",
			"the user likes green tea"} {
			if _, _, err := st.Add(memory.Entry{Text: text}); err != nil {
				t.Fatal(err)
			}
		}
		return st, e
	}
	st, _ := open()
	if err := st.WaitSemantic(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := st.Search("what is the dog called", 3); len(hits) == 0 || !strings.Contains(hits[0].Entry.Text, "Rex") {
		t.Fatalf("Search = %+v", hits)
	}
	sent := srv.EmbeddedTexts()
	st2, e2 := open()
	if err := st2.WaitSemantic(ctx); err != nil {
		t.Fatal(err)
	}
	if e2.Sent() != 0 || srv.EmbeddedTexts() != sent {
		t.Fatalf("a restart sent %d texts, want none", srv.EmbeddedTexts()-sent)
	}

	srv.FailEmbeddings(http.StatusServiceUnavailable)
	e3 := newEmbedder(t, srv, "embed-a", dir)
	st3 := memory.NewInMemory(memory.Options{Embedder: e3})
	if _, _, err := st3.Add(memory.Entry{Text: "the user plays the cello"}); err != nil {
		t.Fatal(err)
	}
	if err := st3.WaitSemantic(ctx); err == nil {
		t.Fatal("WaitSemantic against a failing endpoint did not fail")
	}
	if hits := st3.Search("cello", 3); len(hits) != 1 {
		t.Fatalf("recall by words after the failure = %+v", hits)
	}
}

// TestTwoWritersShareACache: the app and engramctl memory reindex may add
// to the same cache file at once; neither overwrites the other's vectors,
// and each reads the other's instead of sending their texts again.
func TestTwoWritersShareACache(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	dir := t.TempDir()
	a := newEmbedder(t, srv, "embed-a", dir)
	b := newEmbedder(t, srv, "embed-a", dir)
	in := texts(12)
	for i, text := range in {
		e := a
		if i%2 == 1 {
			e = b
		}
		if _, err := e.Embed([]string{text}); err != nil {
			t.Fatal(err)
		}
	}
	sent := srv.EmbeddedTexts()
	for _, e := range []*embedding.Embedder{a, b, newEmbedder(t, srv, "embed-a", dir)} {
		got, err := e.Embed(in)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range in {
			if !slices.Equal(got[i], agenttest.BagOfWords("embed-a", text, 32)) {
				t.Fatalf("vector %d is wrong", i)
			}
		}
	}
	if n := srv.EmbeddedTexts() - sent; n != 0 {
		t.Fatalf("%d texts the other writer cached were sent again", n)
	}
}
