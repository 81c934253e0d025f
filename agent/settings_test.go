package agent_test

import (
	"context"
	"slices"
	"testing"

	"engram/agent"
	"engram/agent/agenttest"
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
