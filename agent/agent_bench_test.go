package agent_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	a, err := agent.New(agent.Options{Config: cfg, Paths: agent.DefaultPaths(dir+"/c", dir+"/d"),
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
	var sum time.Duration
	n := 0
	for b.Loop() {
		n++
		sum += turn(n)
	}
	b.ReportMetric(float64(sum.Microseconds())/1000/float64(n), "ms-to-request")
}
