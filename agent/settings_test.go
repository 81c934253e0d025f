package agent_test

import (
	"context"
	"slices"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
)

func TestDefaultModel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		models []string
		want   string
	}{
		{nil, ""},
		{[]string{"text-embedding-3-small", "whisper-1", "gpt-4o", "gpt-4o-mini"}, "gpt-4o-mini"},
		{[]string{"nomic-embed-text", "qwen2.5:7b", "llama3"}, "qwen2.5:7b"},
		{[]string{"deepseek-reasoner", "deepseek-chat"}, "deepseek-chat"},
		{[]string{"bge-rerank"}, "bge-rerank"},
	} {
		if got := agent.DefaultModel(tc.models); got != tc.want {
			t.Errorf("DefaultModel(%q) = %q, want %q", tc.models, got, tc.want)
		}
	}
}

func TestPresetOf(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"http://localhost:11434/v1":  "Ollama",
		"http://127.0.0.1:1234":      "LM Studio",
		"https://api.openai.com/v1/": "OpenAI",
		"http://10.0.0.2:11434/v1":   "",
		"not a url":                  "",
	} {
		p, _ := agent.PresetOf(url)
		if p.Name != want {
			t.Errorf("PresetOf(%q) = %q, want %q", url, p.Name, want)
		}
	}
}

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
