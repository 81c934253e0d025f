// Package endpoint is what Engram knows of OpenAI-compatible servers: the
// ones the settings offer, the local ones it looks for, and which of a
// server's models to choose.
package endpoint

import (
	"net/url"
	"slices"
	"strings"
)

// Local are the local OpenAI-compatible servers that agent.ResolveConfig
// looks for when no endpoint is configured: Ollama, then LM Studio.
var Local = []string{"http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1"}

// OpenAI is the endpoint used when only an API key is configured.
const OpenAI = "https://api.openai.com/v1"

// Preset is a common OpenAI-compatible server and the endpoint it usually
// has.
type Preset struct {
	Name    string
	BaseURL string
}

// Presets are the endpoints the settings offer to fill in.
var Presets = []Preset{
	{"OpenAI", OpenAI},
	{"DeepSeek", "https://api.deepseek.com/v1"},
	{"Ollama", "http://127.0.0.1:11434/v1"},
	{"LM Studio", "http://127.0.0.1:1234/v1"},
	{"vLLM / OpenAI-compatible", "http://127.0.0.1:8000/v1"},
}

// PresetOf returns the preset whose endpoint has the same host and port as
// baseURL, if any.
func PresetOf(baseURL string) (Preset, bool) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return Preset{}, false
	}
	for _, p := range Presets {
		if pu, _ := url.Parse(p.BaseURL); pu != nil && hostPort(pu) == hostPort(u) {
			return p, true
		}
	}
	return Preset{}, false
}

// hostPort is a URL's host with its port, the scheme's default port
// written out, and localhost as 127.0.0.1.
func hostPort(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return host + ":" + port
}

// notChat are parts of model names that are not chat models (embeddings,
// speech, images, moderation, rerankers).
var notChat = []string{"embed", "whisper", "tts", "dall-e", "moderation", "rerank", "transcribe", "image"}

// preferredModels are chosen, in this order, when an endpoint lists them:
// capable and cheap defaults of the common servers.
var preferredModels = []string{"gpt-4o-mini", "gpt-4.1-mini", "deepseek-chat"}

// DefaultModel picks the model to use from an endpoint's list: a preferred
// one if listed, else the first chat model in the order listed, else the
// first model; "" for an empty list.
func DefaultModel(models []string) string {
	for _, m := range preferredModels {
		if slices.Contains(models, m) {
			return m
		}
	}
	for _, m := range models {
		if isChatModel(m) {
			return m
		}
	}
	if len(models) > 0 {
		return models[0]
	}
	return ""
}

func isChatModel(m string) bool {
	l := strings.ToLower(m)
	for _, s := range notChat {
		if strings.Contains(l, s) {
			return false
		}
	}
	return true
}
