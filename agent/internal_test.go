package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent/endpoint"
	"engram/agent/llm"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	api := func(status int, code, msg string) error {
		return fmt.Errorf("chat completion: %w", &llm.StatusError{Status: status, Code: code, Message: msg})
	}
	tests := []struct {
		err  error
		want Code
	}{
		{api(401, "invalid_api_key", "Incorrect API key"), CodeAuth},
		{api(403, "", "forbidden"), CodeAuth},
		{api(404, "model_not_found", "The model does not exist"), CodeModelNotFound},
		{api(429, "", "slow down"), CodeRateLimited},
		{api(500, "", "oops"), CodeServer},
		{api(503, "", "overloaded"), CodeServer},
		{api(400, "context_length_exceeded", "too long"), CodeContextTooLong},
		{api(400, "", "the request exceeds the available context size, try increasing it"), CodeContextTooLong},
		{api(413, "", "payload too large"), CodeContextTooLong},
		{api(400, "", "registry.ollama.ai/library/gemma:2b does not support tools"), CodeToolsUnsupported},
		{api(400, "", `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`), CodeToolsUnsupported},
		{api(400, "", "tools are not supported by this model"), CodeToolsUnsupported},
		{api(400, "", "bad temperature"), CodeBadRequest},
		{fmt.Errorf("stream: %w", &llm.StatusError{Message: "This model's maximum context length is 4096 tokens"}), CodeContextTooLong},
		{&llm.StatusError{Status: 502, Message: "<html>bad gateway</html>"}, CodeServer},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, CodeUnreachable},
		{&net.DNSError{Err: "no such host", Name: "nope.invalid"}, CodeUnreachable},
		{errors.New("unexpected EOF"), CodeBadResponse},
	}
	for _, tt := range tests {
		err := classify(tt.err, "m")
		var e *Error
		if !errors.As(err, &e) || e.Code != tt.want {
			t.Errorf("classify(%v) = %v, want %s", tt.err, err, tt.want)
			continue
		}
		if !errors.Is(err, tt.err) || e.Message == "" {
			t.Errorf("classify(%v): cause lost or no message", tt.err)
		}
	}
	if err := classify(context.Canceled, "m"); err != context.Canceled {
		t.Errorf("classify(Canceled) = %v", err)
	}
}

func TestConfigLoadSaveEnv(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "engram", "config.json")
	c, err := LoadConfig(path, nil)
	if err != nil || c != DefaultConfig() {
		t.Fatalf("missing file: %+v, %v", c, err)
	}
	c.BaseURL, c.APIKey, c.Model, c.AutoRecall, c.RecallTopK = "http://file/v1", "sk-file-secret-9876", "file-model", false, 7
	if err := SaveConfig(path, c); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file mode: %v, %v", st, err)
	}
	got, err := LoadConfig(path, nil)
	if err != nil || got != c {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	env := map[string]string{"OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "sk-env", "ENGRAM_MODEL": "env-model"}
	got, err = LoadConfig(path, func(k string) string { return env[k] })
	if err != nil || got.BaseURL != "http://env/v1" || got.APIKey != "sk-env" || got.Model != "env-model" ||
		got.AutoRecall || got.RecallTopK != 7 {
		t.Errorf("env override: %+v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file: %v", err)
	}
	if m := c.MaskedKey(); m != "••••9876" || strings.Contains(m, "secret") {
		t.Errorf("MaskedKey = %q", m)
	}
	if m := (Config{APIKey: "short"}).MaskedKey(); m != "••••" {
		t.Errorf("MaskedKey(short) = %q", m)
	}
	if m := (Config{}).MaskedKey(); m != "" {
		t.Errorf("MaskedKey(none) = %q", m)
	}
}

// modelsServer answers GET /v1/models with the given IDs.
func modelsServer(t *testing.T, ids ...string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for i, id := range ids {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":%q,"object":"model"}`, id)
		}
		fmt.Fprintf(w, `{"object":"list","data":[%s]}`, b.String())
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String() + "/v1"
}

func TestDetect(t *testing.T) {
	t.Parallel()
	dead := "http://127.0.0.1:1/v1" // nothing listens on port 1
	live := modelsServer(t, "llama3.2", "qwen")
	ctx := context.Background()

	got := detect(ctx, DefaultConfig(), openAICompatible(nil), []string{dead, live})
	if got.BaseURL != live || got.Model != "llama3.2" {
		t.Errorf("detect = %q %q", got.BaseURL, got.Model)
	}
	got = detect(ctx, DefaultConfig(), openAICompatible(nil), []string{dead})
	if got.BaseURL != "" || got.Model != "" {
		t.Errorf("nothing found: %q %q", got.BaseURL, got.Model)
	}
	c := DefaultConfig()
	c.BaseURL = live
	if got = detect(ctx, c, openAICompatible(nil), []string{dead}); got.Model != "llama3.2" || got.BaseURL != live {
		t.Errorf("model from the configured endpoint: %+v", got)
	}
	c.Model = "chosen"
	if got = detect(ctx, c, openAICompatible(nil), nil); got.Model != "chosen" {
		t.Errorf("configured model replaced: %q", got.Model)
	}
}

func TestDetectKeyWithoutEndpointMeansOpenAI(t *testing.T) {
	t.Parallel()
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the key was offered to a local server: %s %s", r.Method, r.URL)
	}))
	defer local.Close()
	var asked []string
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		asked = append(asked, r.URL.Host)
		return nil, errors.New("offline")
	})}
	c := DefaultConfig()
	c.APIKey = "sk-test"
	got := detect(context.Background(), c, openAICompatible(client), []string{local.URL + "/v1"})
	if got.BaseURL != endpoint.OpenAI {
		t.Errorf("BaseURL = %q, want %q", got.BaseURL, endpoint.OpenAI)
	}
	if len(asked) != 1 || asked[0] != "api.openai.com" {
		t.Errorf("probed %v, want only api.openai.com", asked)
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestResolveConfigUsesFileAndEnv(t *testing.T) {
	t.Parallel()
	live := modelsServer(t, "served")
	paths := DefaultPaths(t.TempDir(), t.TempDir(), t.TempDir())
	env := map[string]string{"OPENAI_BASE_URL": live}
	c, err := ResolveConfig(context.Background(), paths, func(k string) string { return env[k] }, nil)
	if err != nil || c.BaseURL != live || c.Model != "served" {
		t.Errorf("ResolveConfig = %+v, %v", c, err)
	}
}

func TestInstructionsLoader(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "AGENTS.md")
	in := NewInstructions(path)
	if text, _ := in.Text(); text != "" || in.Info().Found {
		t.Errorf("missing file: %q %+v", text, in.Info())
	}
	if err := os.WriteFile(path, []byte("  be kind  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, changed := in.Text()
	if text != "be kind" || !changed || !in.Info().Found {
		t.Errorf("after create: %q changed=%v", text, changed)
	}
	if _, changed := in.Text(); changed {
		t.Error("unchanged file reported as changed")
	}
	// Same size, same mtime: only Reload sees it (the watcher's job).
	st, _ := os.Stat(path)
	if err := os.WriteFile(path, []byte("  be calm  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if ev, changed := in.Reload(); !changed || !ev.Found || ev.Path != path {
		t.Errorf("Reload = %+v, %v", ev, changed)
	}
	if _, changed := in.Reload(); changed {
		t.Error("Reload of an unchanged file reported a change")
	}
	if text, _ := in.Text(); text != "be calm" {
		t.Errorf("after Reload: %q", text)
	}

	big := strings.Repeat("é", MaxInstructionsSize) // 2 bytes each
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	text, changed = in.Text()
	info := in.Info()
	if !changed || !info.Truncated || info.Size != int64(len(big)) || len(text) > MaxInstructionsSize+200 ||
		!strings.Contains(text, "only its first 64 KiB is used") || !strings.HasPrefix(text, "éé") {
		t.Errorf("big file: %d bytes, %+v", len(text), info)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if text, changed := in.Text(); text != "" || !changed || in.Info().Found {
		t.Errorf("after delete: %q changed=%v", text, changed)
	}
}
