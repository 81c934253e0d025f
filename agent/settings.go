package agent

import (
	"context"
	"strings"
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
