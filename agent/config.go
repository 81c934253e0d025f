package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"engram/agent/endpoint"
	"engram/agent/llm"
	"engram/memory"
	"engram/memory/durable"
)

// The environment variables that override the config file.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvModel   = "ENGRAM_MODEL"
)

// Config is what the agent needs to reach a model and how it uses memory.
// It is resolved once (file, then environment) by the program and passed in.
type Config struct {
	BaseURL string `json:"base_url,omitempty"` // OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1
	APIKey  string `json:"api_key,omitempty"`
	Model   string `json:"model,omitempty"`

	AutoRecall   bool `json:"auto_recall"`             // the default for new chats
	Distill      bool `json:"distill"`                 // save memories after each turn
	RecallTopK   int  `json:"recall_top_k,omitempty"`  // hits per turn (default 5)
	RecallBudget int  `json:"recall_budget,omitempty"` // characters of recall block (default 2400)
	// ContextChars is the size, in characters, above which a chat's older
	// messages are summarised (default 60000).
	ContextChars int `json:"context_chars,omitempty"`

	// StreamIdleTimeout, in seconds, ends a turn whose answer sends nothing
	// for that long once it has started (default 90).
	StreamIdleTimeout float64 `json:"stream_idle_timeout,omitempty"`
	// FirstByteTimeout, in seconds, ends a turn whose answer has not
	// started that long after the request (default 300: a local server
	// may load the model first).
	FirstByteTimeout float64 `json:"first_byte_timeout,omitempty"`
	// MaxAnswerBytes cuts an answer (text and reasoning) at that size,
	// with a notice (default 4 MiB).
	MaxAnswerBytes int `json:"max_answer_bytes,omitempty"`
	// Capture is what becomes of distilled memories: auto (default), ask
	// (held as suggestions until kept) or off; a chat may override it.
	Capture CaptureMode `json:"capture,omitempty"`
	// Language is the window's language: "" follows the system, "en" or
	// "zh-Hans" choose one.
	Language string `json:"language,omitempty"`
	// SemanticRecall is the model semantic recall embeds with: "builtin"
	// (or "", the default) for the built-in one, or an embedding model of
	// the endpoint (see Agent.applySemantic).
	SemanticRecall string `json:"semantic_recall,omitempty"`
}

// Defaults for the zero fields of a Config.
const (
	DefaultRecallTopK   = 5
	DefaultRecallBudget = memory.DefaultBudget
	DefaultContextChars = 60000

	DefaultStreamIdleTimeout = 90  // seconds
	DefaultFirstByteTimeout  = 300 // seconds
	DefaultMaxAnswerBytes    = 4 << 20
)

// DefaultConfig is the configuration of a fresh install: no endpoint, with
// auto-recall and distillation on.
func DefaultConfig() Config {
	return Config{AutoRecall: true, Distill: true, RecallTopK: DefaultRecallTopK,
		RecallBudget: DefaultRecallBudget, ContextChars: DefaultContextChars,
		StreamIdleTimeout: DefaultStreamIdleTimeout, FirstByteTimeout: DefaultFirstByteTimeout,
		MaxAnswerBytes: DefaultMaxAnswerBytes}
}

// withDefaults fills the zero numeric fields.
func (c Config) withDefaults() Config {
	if c.RecallTopK <= 0 {
		c.RecallTopK = DefaultRecallTopK
	}
	if c.RecallBudget <= 0 {
		c.RecallBudget = DefaultRecallBudget
	}
	if c.ContextChars <= 0 {
		c.ContextChars = DefaultContextChars
	}
	if c.StreamIdleTimeout <= 0 {
		c.StreamIdleTimeout = DefaultStreamIdleTimeout
	}
	if c.FirstByteTimeout <= 0 {
		c.FirstByteTimeout = DefaultFirstByteTimeout
	}
	if c.MaxAnswerBytes <= 0 {
		c.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	return c
}

// endpoint is what Connect needs to reach the configured model.
func (c Config) endpoint() llm.Endpoint {
	seconds := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return llm.Endpoint{BaseURL: c.BaseURL, APIKey: c.APIKey, FirstByteTimeout: seconds(c.FirstByteTimeout),
		IdleTimeout: seconds(c.StreamIdleTimeout), MaxAnswerBytes: c.MaxAnswerBytes}
}

// MaskedKey shows the API key the way it may be displayed: its last four
// characters only ("••••abcd"), or "" when there is no key.
func (c Config) MaskedKey() string {
	k := []rune(c.APIKey)
	switch {
	case len(k) == 0:
		return ""
	case len(k) <= 8:
		return "••••"
	}
	return "••••" + string(k[len(k)-4:])
}

// LoadConfig reads the config file at path (a missing file is the default
// config) and applies the environment overrides OPENAI_BASE_URL,
// OPENAI_API_KEY and ENGRAM_MODEL read through getenv (nil means none).
func LoadConfig(path string, getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, fmt.Errorf("load config %s: %w", path, err)
	default:
		if err := json.Unmarshal(b, &c); err != nil {
			return DefaultConfig(), fmt.Errorf("load config %s: %w", path, err)
		}
	}
	if getenv != nil {
		for _, f := range envFields {
			if v := strings.TrimSpace(getenv(f.env)); v != "" {
				*f.field(&c) = v
			}
		}
	}
	return c.withDefaults(), nil
}

// envFields are the fields of a Config that the environment overrides.
var envFields = [...]struct {
	env   string
	field func(*Config) *string
}{
	{EnvBaseURL, func(c *Config) *string { return &c.BaseURL }},
	{EnvAPIKey, func(c *Config) *string { return &c.APIKey }},
	{EnvModel, func(c *Config) *string { return &c.Model }},
}

// configSource knows where the endpoint, key and model in use come from, so
// that a reload of config.json and SetConfig treat each of them exactly.
// For each of these fields the value in use is, in this order:
//
//  1. the environment's (OPENAI_BASE_URL, OPENAI_API_KEY, ENGRAM_MODEL),
//     unless the person set the field in the app during this run;
//  2. config.json's;
//  3. the value the agent started with when neither the environment nor
//     config.json gave one (a local server that ResolveConfig detected);
//  4. the environment's, when the person set the field in the app and
//     config.json has it empty.
//
// SetConfig writes a field into config.json only when the person changed
// it; a field left as it was keeps config.json's value there, so the
// environment's values (the key above all) and a detected server are never
// written to the file.
type configSource struct {
	env      [len(envFields)]string // the environment's value; "" when unset
	fallback [len(envFields)]string // rule 3
	chosen   [len(envFields)]bool   // set in the app while the environment has it
}

// newConfigSource compares the config the agent starts with to the file
// and the environment.
func newConfigSource(start, file Config, getenv func(string) string) configSource {
	var s configSource
	for i, f := range envFields {
		if getenv != nil {
			s.env[i] = strings.TrimSpace(getenv(f.env))
		}
		if s.env[i] == "" && *f.field(&file) == "" {
			s.fallback[i] = *f.field(&start)
		}
	}
	return s
}

// inUse returns the config that applies when config.json holds file.
func (s *configSource) inUse(file Config) Config {
	for i, f := range envFields {
		v := f.field(&file)
		switch {
		case s.env[i] != "" && (!s.chosen[i] || *v == ""):
			*v = s.env[i]
		case *v == "":
			*v = s.fallback[i]
		}
	}
	return file
}

// toSave returns what SetConfig writes to config.json when the person
// changes the config in use, cur, to c, and config.json holds file: c, with
// the endpoint, key and model that the person left unchanged as they are in
// file. It also returns which of those the person changed.
func toSave(c, cur, file Config) (Config, [len(envFields)]bool) {
	var changed [len(envFields)]bool
	for i, f := range envFields {
		if *f.field(&c) == *f.field(&cur) {
			*f.field(&c) = *f.field(&file)
		} else {
			changed[i] = true
		}
	}
	return c, changed
}

// String describes c with the API key masked, so that a Config that ends up
// in a log, an error or a test failure never shows the key.
func (c Config) String() string {
	type fields Config // without the methods
	c.APIKey = c.MaskedKey()
	return fmt.Sprintf("%+v", fields(c))
}

// GoString is String, for the %#v verb.
func (c Config) GoString() string { return c.String() }

// SaveConfig writes c to path atomically with mode 0600 (it holds the key).
func SaveConfig(path string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := durable.WriteFileAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	return nil
}

// Paths are the directories Engram keeps its files in.
type Paths struct {
	ConfigDir string // $XDG_CONFIG_HOME/engram: config.json, AGENTS.md, memory.json, projects/
	DataDir   string // $XDG_DATA_HOME/engram: chats/, suggestions.json
	// StateDir is this device's own folder, never synced ($XDG_STATE_HOME/engram
	// on Linux): the memory stores' device ID, journal and backups, and the
	// progress of Learn. The agent opens every store with it.
	StateDir string
}

// DefaultPaths returns the Engram directories under the given base
// directories (the program passes xdg.ConfigHome, xdg.DataHome and
// xdg.StateHome): "engram" in each. The state directory is "engram-state"
// in the state home instead when "engram" there would be the config or data
// directory or lie inside one of them — as on macOS and Windows, where
// adrg/xdg gives all three homes the same folder — so that syncing the
// folder of memory.json never copies this device's ID and journal.
func DefaultPaths(configHome, dataHome, stateHome string) Paths {
	p := Paths{ConfigDir: filepath.Join(configHome, "engram"), DataDir: filepath.Join(dataHome, "engram"),
		StateDir: filepath.Join(stateHome, "engram")}
	if within(p.StateDir, p.ConfigDir) || within(p.StateDir, p.DataDir) {
		p.StateDir = filepath.Join(stateHome, "engram-state")
	}
	return p
}

// within reports whether path is dir or lies inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ConfigFile is the path of config.json.
func (p Paths) ConfigFile() string { return filepath.Join(p.ConfigDir, "config.json") }

// GlobalMemory is the path of the global memory.json.
func (p Paths) GlobalMemory() string { return memory.GlobalPath(p.ConfigDir) }

// MCPConfig is <ConfigDir>/mcp.json: the MCP servers whose tools a chat
// may use, in Claude Desktop's format.
func (p Paths) MCPConfig() string { return filepath.Join(p.ConfigDir, "mcp.json") }

// GlobalInstructions is the path of the global AGENTS.md.
func (p Paths) GlobalInstructions() string { return filepath.Join(p.ConfigDir, "AGENTS.md") }

// ProjectMemory is the path of a project folder's memory.json, kept under
// the config dir so the project folder itself is never written to.
func (p Paths) ProjectMemory(projectDir string) string {
	return memory.ProjectPath(p.ConfigDir, projectDir)
}

// EmbeddingsDir holds the vectors of the endpoint's embedding models, one
// cache file per model: <StateDir>/embeddings.
func (p Paths) EmbeddingsDir() string { return filepath.Join(p.StateDir, "embeddings") }

// LearnProgress is the file where Learn records how far it got:
// <StateDir>/learn.json.
func (p Paths) LearnProgress() string { return filepath.Join(p.StateDir, "learn.json") }

// ChatsDir is the directory with one JSON file per chat.
func (p Paths) ChatsDir() string { return filepath.Join(p.DataDir, "chats") }

// probeTimeout bounds each probe of a local endpoint.
const probeTimeout = 400 * time.Millisecond

// ResolveConfig loads the config file under paths, applies the environment
// (getenv), and fills what is missing: a key with no endpoint means
// endpoint.OpenAI; with no endpoint and no key it probes the endpoint.Local servers
// and takes the first that answers, with its first model;
// with an endpoint but no model it asks the endpoint for its first model.
// The only error is an unreadable config file. When nothing is found the
// config is returned without an endpoint: the app still works, and a turn
// reports CodeNoEndpoint. The probes go through client (nil: one with
// connect and header timeouts).
func ResolveConfig(ctx context.Context, paths Paths, getenv func(string) string, client *http.Client) (Config, error) {
	c, err := LoadConfig(paths.ConfigFile(), getenv)
	if err != nil {
		return c, err
	}
	return detect(ctx, c, openAICompatible(client), endpoint.Local), nil
}

// detect fills the endpoint and model of c from the first candidate that
// answers /models.
func detect(ctx context.Context, c Config, connect Connect, candidates []string) Config {
	if c.BaseURL == "" && c.APIKey != "" {
		// A key with no endpoint is an OpenAI key, as in go-openai's own
		// default: it is never offered to whatever listens on a local port.
		c.BaseURL = endpoint.OpenAI
	}
	if c.BaseURL != "" {
		candidates = []string{c.BaseURL}
	}
	if c.Model != "" && c.BaseURL != "" {
		return c
	}
	for _, base := range candidates {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		ep := c.endpoint()
		ep.BaseURL = base
		models, err := connect(ep).Models(pctx)
		cancel()
		if err != nil || len(models) == 0 {
			continue
		}
		c.BaseURL = base
		if c.Model == "" {
			c.Model = models[0]
		}
		return c
	}
	return c
}
