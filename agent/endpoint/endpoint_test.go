package endpoint_test

import (
	"testing"

	"engram/agent/endpoint"
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
		if got := endpoint.DefaultModel(tc.models); got != tc.want {
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
		p, _ := endpoint.PresetOf(url)
		if p.Name != want {
			t.Errorf("PresetOf(%q) = %q, want %q", url, p.Name, want)
		}
	}
}
