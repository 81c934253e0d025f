package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"engram/agent/distill"
	"engram/memory"
)

// newTestAgent opens an agent in a temporary home, without an endpoint.
func newTestAgent(t *testing.T, now func() time.Time) *Agent {
	t.Helper()
	dir := t.TempDir()
	a, err := New(Options{Paths: DefaultPaths(dir+"/config", dir+"/data", dir+"/state"), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// A pinned memory over the pinned budget used to make itself and every
// pinned memory after it vanish from the prompt.
func TestPinnedOverBudgetIsCutNotDropped(t *testing.T) {
	t.Parallel()
	a := newTestAgent(t, nil)
	long := "The user's style guide: " + strings.Repeat("use short sentences and plain words; ", 130)
	for _, text := range []string{"Answer in British English.", long, "Never use emoji in answers."} {
		if _, _, err := a.global.st.Add(memory.Entry{Kind: memory.KindPreference, Text: text, Pinned: true}); err != nil {
			t.Fatal(err)
		}
	}
	sys := a.prompt(Chat{}, &turnState{}, a.Config(), false)[0].Content
	for _, want := range []string{"British English", "The user's style guide", "Never use emoji"} {
		if !strings.Contains(sys, want) {
			t.Errorf("pinned memory %q missing from the prompt", want)
		}
	}
	if !strings.Contains(sys, "…") {
		t.Error("the long pinned memory is not marked as cut")
	}
}

// Every earlier summary of a long chat used to be re-sent each turn.
func TestOnlyLatestSummarySent(t *testing.T) {
	t.Parallel()
	a := newTestAgent(t, nil)
	c := Chat{Messages: []Message{
		{Role: RoleUser, Text: "first"},
		{Role: RoleSummary, Text: "OLD SUMMARY of the first part"},
		{Role: RoleUser, Text: "second"},
		{Role: RoleSummary, Text: "NEW SUMMARY of everything so far"},
		{Role: RoleUser, Text: "third"},
	}}
	msgs := a.prompt(c, &turnState{}, a.Config(), false)
	if sys := msgs[0].Content; strings.Contains(sys, "OLD SUMMARY") || !strings.Contains(sys, "NEW SUMMARY") {
		t.Errorf("system prompt holds the wrong summaries:\n%s", sys)
	}
	if len(msgs) != 2 || msgs[1].Content != "third" {
		t.Errorf("messages after the summary = %+v", msgs[1:])
	}
}

// Hits of the global and the project store used to be ordered by raw BM25
// scores of two different indexes: a small project store's scores are far
// lower (its terms are common in it), so its best match never made the cut.
func TestHitsOfTwoStoresComparable(t *testing.T) {
	t.Parallel()
	global := &storeState{st: memory.NewInMemory(memory.Options{}), scope: ScopeGlobal}
	proj := &storeState{st: memory.NewInMemory(memory.Options{}), scope: ScopeProject}
	var es []memory.Entry
	for i := range 300 {
		es = append(es, memory.Entry{Kind: memory.KindFact, Text: fmt.Sprintf("Note %d about gardening and tomato number %d.", i, i)})
	}
	for i := range 4 {
		es = append(es, memory.Entry{Kind: memory.KindFact, Text: fmt.Sprintf("The old deploy script %d was removed.", i)})
	}
	if _, err := global.st.AddAll(es); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Deploy this project to staging with make deploy-staging.",
		"The staging deploy needs the VPN.", "Deploy notes: staging first, then production."} {
		if _, _, err := proj.st.Add(memory.Entry{Kind: memory.KindFact, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	hits := bestHits([]distill.Target{global.target(), proj.target()}, "how do I deploy to staging", nil, 3, false)
	var scopes []Scope
	for _, h := range hits {
		scopes = append(scopes, h.Scope)
	}
	if len(hits) == 0 || hits[0].Scope != ScopeProject || !strings.Contains(hits[0].Entry.Text, "staging") {
		t.Errorf("best hit is not the project's staging memory: scopes %v, hits %+v", scopes, hits)
	}
}

// The system prompt states today's date, from the injected clock.
func TestPromptStatesToday(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 3, 9, 30, 0, 0, time.UTC)
	a := newTestAgent(t, func() time.Time { return day })
	sys := a.prompt(Chat{}, &turnState{}, a.Config(), false)[0].Content
	if !strings.Contains(sys, "Today's date is Tuesday, 2026-11-03.") {
		t.Errorf("no date in the system prompt:\n%s", sys)
	}
}
