package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent/agenttest"
)

func noEnv(string) string { return "" }

// embedCLI is engramctl in process against a private home and a fake
// endpoint that serves /v1/embeddings.
type embedCLI struct {
	*cli
	srv *agenttest.Server
}

func newEmbedCLI(t *testing.T) *embedCLI {
	srv := agenttest.NewServer()
	t.Cleanup(srv.Close)
	return &embedCLI{cli: newCLI(t), srv: srv}
}

func (c *embedCLI) run(args ...string) (int, string, string) {
	c.t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		switch k {
		case "OPENAI_BASE_URL":
			return c.srv.BaseURL()
		case "ENGRAM_MODEL":
			return "fake-model"
		}
		return c.getenv(k)
	}
	code := runIO(context.Background(), args, strings.NewReader(""), &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func TestMemoryReindex(t *testing.T) {
	c := newEmbedCLI(t)
	for i := range 5 {
		c.ok("memory", "add", fmt.Sprintf("memory %d about the user's garden", i))
	}
	long := strings.Repeat("a long memory about tomatoes and their care ", 20) // several chunks
	c.ok("memory", "add", long)

	code, out, errs := c.run("memory", "reindex", "--model", "embed-a")
	if code != exitOK {
		t.Fatalf("reindex: exit %d\n%s", code, errs)
	}
	if !strings.HasPrefix(out, "Indexing 0 of 6 memories\n") || !strings.Contains(out, "Indexing 6 of 6 memories\n") {
		t.Fatalf("reindex output:\n%s", out)
	}
	sent := c.srv.EmbeddedTexts()
	if sent < 7 { // the probe, five memories, the long one's chunks
		t.Fatalf("reindex sent %d texts", sent)
	}
	files, _ := filepath.Glob(filepath.Join(c.home, "state", "engram", "embeddings", "*.vec"))
	if len(files) != 1 {
		t.Fatalf("cache files %q", files)
	}

	// Again: everything comes from the cache.
	code, out, errs = c.run("memory", "reindex", "--model", "embed-a")
	if code != exitOK || !strings.Contains(out, "Indexing 6 of 6 memories\n") || !strings.Contains(out, "0 texts sent") {
		t.Fatalf("second reindex: exit %d\n%s%s", code, out, errs)
	}
	if c.srv.EmbeddedTexts() != sent {
		t.Fatalf("the second reindex sent %d texts", c.srv.EmbeddedTexts()-sent)
	}
	// Another model embeds everything again.
	if code, _, errs := c.run("memory", "reindex", "--model", "embed-b"); code != exitOK {
		t.Fatalf("reindex with another model: exit %d\n%s", code, errs)
	}
	if n := c.srv.EmbeddedTexts() - sent; n != sent {
		t.Fatalf("another model sent %d texts, want %d", n, sent)
	}
}

func TestMemoryReindexFails(t *testing.T) {
	c := newEmbedCLI(t)
	c.ok("memory", "add", "the user likes jazz")
	if code, _, errs := c.run("memory", "reindex"); code != exitError || !strings.Contains(errs, "no embedding model") {
		t.Fatalf("reindex without a model: exit %d\n%s", code, errs)
	}
	c.srv.SetEmbedModels("embed-a")
	if code, _, errs := c.run("memory", "reindex", "--model", "gone"); code != exitError || !strings.Contains(errs, "gone") {
		t.Fatalf("reindex with a model the endpoint lacks: exit %d\n%s", code, errs)
	}
	// The probe works, the memories' request fails.
	if code, _, errs := c.run("memory", "reindex", "--model", "embed-a"); code != exitOK {
		t.Fatalf("reindex: exit %d\n%s", code, errs)
	}
	c.ok("memory", "add", "the user plays the piano")
	c.srv.FailEmbeddings(http.StatusInternalServerError)
	if code, _, errs := c.run("memory", "reindex", "--model", "embed-a"); code != exitError ||
		!strings.Contains(errs, "500") {
		t.Fatalf("reindex against a failing endpoint: exit %d\n%s", code, errs)
	}
}

func TestBenchRecallDenseEndpoint(t *testing.T) {
	c := newEmbedCLI(t)
	dir := t.TempDir()
	mem := benchWriteFile(t, dir, "x.memories.jsonl", benchMems)
	qry := benchWriteFile(t, dir, "x.queries.jsonl", benchQueries)
	args := []string{"bench-recall", "--memories", mem, "--queries", qry, "--dense", "endpoint", "--model", "embed-a"}
	code, out, errs := c.run(args...)
	if code != exitOK || strings.Count(out, "\n") != 4 || !strings.Contains(out, `"id":"q0","hits":["D1:1"`) {
		t.Fatalf("bench-recall --dense endpoint: exit %d\n%s%s", code, out, errs)
	}
	sent := c.srv.EmbeddedTexts()
	if code, again, errs := c.run(args...); code != exitOK || again != out {
		t.Fatalf("second run: exit %d\n%s%s", code, again, errs)
	}
	// The memories and the queries come from the cache.
	if n := c.srv.EmbeddedTexts() - sent; n != 0 {
		t.Fatalf("the second run sent %d texts", n)
	}
	if code, _, errs := c.run("bench-recall", "--memories", mem, "--queries", qry, "--dense", "endpoint"); code != exitError ||
		!strings.Contains(errs, "no embedding model") {
		t.Fatalf("--dense endpoint without a model: exit %d\n%s", code, errs)
	}
}

// memory search of more than two words ranks by the endpoint's model when
// Settings choose one: the memories' vectors come from the cache reindex
// filled, only the query is sent; a failing endpoint falls back to the
// built-in model with a warning, and the search still answers.
func TestMemorySearchByEndpointModel(t *testing.T) {
	c := newEmbedCLI(t)
	c.ok("memory", "add", "the user grows tomatoes in the garden")
	c.ok("memory", "add", "the user plays the piano on Sundays")
	cfgFile := enginePaths(c.getenv).ConfigFile()
	if err := os.MkdirAll(filepath.Dir(cfgFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile, []byte(`{"semantic_recall": "embed-a"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := c.run("memory", "reindex"); code != exitOK {
		t.Fatalf("reindex: exit %d\n%s", code, errs)
	}
	sent := c.srv.EmbeddedTexts()
	code, out, errs := c.run("memory", "search", "tomatoes in the garden")
	if code != exitOK || !strings.Contains(out, "tomatoes") || errs != "" {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	reqs := c.srv.EmbedRequests()
	if n := c.srv.EmbeddedTexts() - sent; n != 1 || reqs[len(reqs)-1].Model != "embed-a" {
		t.Fatalf("the search sent %d texts (want the query alone), the last request for %q", n, reqs[len(reqs)-1].Model)
	}

	c.srv.FailEmbeddings(http.StatusInternalServerError)
	code, out, errs = c.run("memory", "search", "piano on Sundays please")
	if code != exitOK || !strings.Contains(out, "piano") || !strings.Contains(errs, "built-in model") {
		t.Fatalf("search against a failing endpoint: exit %d\n%s%s", code, out, errs)
	}
}
