package agent_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// benchWords make up the synthetic memories and queries.
var benchWords = strings.Fields(`go rust python tabs spaces coffee tea cat dog bike train berlin lisbon oslo
	postgres sqlite redis kafka docker nix vim emacs vscode linux macos windows review tests fuzz bench
	deploy friday monday meeting standup budget invoice client server latency cache index query schema
	migration rollback feature flag release branch main trunk commit rebase merge squash changelog
	semver api grpc rest json yaml toml config secret vault token oauth login password email slack`)

func benchText(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(w, " ")
}

// BenchmarkSendToRequest measures the time from Send to the completion
// request arriving at the endpoint, with 10,000 memories in the global
// store and auto-recall on: recall, prompt assembly and the chat write
// before the request must not be felt (target ≤ 5 ms).
func BenchmarkSendToRequest(b *testing.B) {
	srv := agenttest.NewServer()
	defer srv.Close()
	arrived := make(chan time.Time, 16)
	srv.OnRequest = func(agenttest.Request) { arrived <- time.Now() }
	srv.Respond = func(agenttest.Request) agenttest.Reply { return agenttest.Reply{Text: "ok"} }

	dir := b.TempDir()
	cfg := agent.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.Distill = srv.BaseURL(), "fake-model", false
	a, err := agent.New(agent.Options{Config: cfg, Paths: agent.DefaultPaths(dir+"/c", dir+"/d", dir+"/s"),
		HTTPClient: srv.Client(), Memory: memory.Options{MaxEntries: 20000}})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	st, err := a.Memory(agent.ScopeGlobal, "")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const total = 10000
	for added := 0; added < total; {
		batch := make([]memory.Entry, 0, 1000)
		for range 1000 {
			batch = append(batch, memory.Entry{Kind: memory.Kinds[r.IntN(4)], Source: memory.SourceImport,
				Text: fmt.Sprintf("Memory %d: %s.", added+len(batch), benchText(r, 8+r.IntN(20)))})
		}
		res, err := st.AddAll(batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, x := range res {
			if x.Err == nil && x.New {
				added++
			}
		}
	}
	if n := len(st.List()); n < total {
		b.Fatalf("%d memories in the store, want %d", n, total)
	}

	var chatID string
	turn := func(i int) time.Duration {
		if i%10 == 0 {
			c, err := a.NewChat()
			if err != nil {
				b.Fatal(err)
			}
			chatID = c.ID
		}
		start := time.Now()
		if err := a.Send(context.Background(), chatID, "What do I prefer about "+benchText(r, 5)+"?"); err != nil {
			b.Fatal(err)
		}
		at := <-arrived
		for e := range a.Events() {
			if d, ok := e.(agent.TurnDone); ok && d.ChatID == chatID {
				if d.Err != nil {
					b.Fatal(d.Err)
				}
				break
			}
		}
		a.Wait() // the bookkeeping after the turn; people do not type that fast
		return at.Sub(start)
	}
	turn(0) // builds the index
	var times []time.Duration
	for b.Loop() {
		times = append(times, turn(len(times)+1))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median-to-request")
}

// BenchmarkDistillRequestSize measures what consolidation adds to a
// distillation request: the bytes of the request body with 10 related
// memories shown, minus those of the same turn with none (an empty store).
func BenchmarkDistillRequestSize(b *testing.B) {
	const user = "I switched from tabs to spaces in my Go code, and I now deploy with Docker on Fridays."
	body := func(memories int) int {
		srv := agenttest.NewServer()
		defer srv.Close()
		dir := b.TempDir()
		cfg := agent.DefaultConfig()
		cfg.BaseURL, cfg.Model = srv.BaseURL(), "fake-model"
		a, err := agent.New(agent.Options{Config: cfg, Paths: agent.DefaultPaths(dir+"/c", dir+"/d", dir+"/s"), HTTPClient: srv.Client()})
		if err != nil {
			b.Fatal(err)
		}
		defer a.Close()
		st, _ := a.Memory(agent.ScopeGlobal, "")
		topics := []string{"tabs in Go code", "spaces in Go code", "Go code reviews", "Docker deploys on Fridays",
			"deploys with Docker", "spaces and tabs in Go", "deploys on Fridays", "Docker and Go code", "tabs and spaces",
			"Go code deploys"}
		for i := range memories {
			if _, _, err := st.Add(memory.Entry{Kind: memory.KindPreference, Source: memory.SourceAuto,
				Text: fmt.Sprintf("The user has a settled habit about %s (note %d).", topics[i], i)}); err != nil {
				b.Fatal(err)
			}
		}
		srv.Push(agenttest.Reply{Text: "Noted: spaces, and Docker deploys on Fridays."}, agenttest.Reply{Text: "[]"})
		c, _ := a.NewChat()
		if err := a.Send(context.Background(), c.ID, user); err != nil {
			b.Fatal(err)
		}
		for e := range a.Events() {
			if d, ok := e.(agent.TurnDone); ok && d.ChatID == c.ID {
				break
			}
		}
		a.Wait()
		reqs := srv.Requests()
		if len(reqs) != 2 {
			b.Fatalf("%d requests", len(reqs))
		}
		if got := strings.Count(reqs[1].LastUser(), "\nid="); memories > 0 && got != 10 {
			b.Fatalf("%d related memories shown, want 10 (of %d):\n%s", got, len(st.List()), reqs[1].LastUser())
		}
		return len(reqs[1].Body)
	}
	var none, ten int
	for b.Loop() {
		none, ten = body(0), body(10)
	}
	b.ReportMetric(float64(none), "bytes-no-related")
	b.ReportMetric(float64(ten), "bytes-10-related")
	b.ReportMetric(float64(ten-none), "extra-bytes")
}
