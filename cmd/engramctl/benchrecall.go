package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"engram/memory"
)

// benchMemory is one line of NAME.memories.jsonl.
type benchMemory struct {
	ID      string    `json:"id"`
	Text    string    `json:"text"`
	Created time.Time `json:"created"`
}

// benchQuery is one line of NAME.queries.jsonl.
type benchQuery struct {
	ID      string   `json:"id"`
	Query   string   `json:"query"`
	History []string `json:"history"`
}

func init() {
	register("bench-recall", "rank memories for the recall eval (shared/eval)",
		func(ctx context.Context, args []string, env *cliEnv) int {
			return benchRecall(ctx, args, env)
		})
}

// benchRecall implements `engramctl bench-recall` (the contract of
// shared/eval/README.md): it loads the memories into a fresh in-memory
// store, keeping their ids and creation times, and prints for every query
// the ids of the memories recalled, best first, at most --k of them. Recall
// goes through Store.Recall exactly as the app's auto-recall does, with only
// the cut-off lifted, K raised and the store's cap set to fit every memory.
// Its last line on stderr is the timing. With --dense endpoint the dense
// signal is the endpoint's embedding model (--model, or semantic_recall of
// config.json), reached as engramctl chat reaches the endpoint, its vectors
// cached in the state folder.
func benchRecall(ctx context.Context, args []string, env *cliEnv) int {
	stdout, stderr := env.Stdout, env.Stderr
	fs := flag.NewFlagSet("bench-recall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	memPath := fs.String("memories", "", "memories `file` (JSON lines: id, text, created)")
	qryPath := fs.String("queries", "", "queries `file` (JSON lines: id, query, history)")
	k := fs.Int("k", 50, "hits per query at most")
	denseFlag := fs.String("dense", "builtin", "dense signal fused with BM25: `builtin`, none or endpoint")
	model := fs.String("model", "", "the endpoint's embedding model, with --dense endpoint (default: config.json's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var emb memory.Embedder
	switch *denseFlag {
	case "builtin":
		emb = memory.Builtin()
	case "none":
	case "endpoint":
		e, err := endpointEmbedder(ctx, env, *model)
		if err != nil {
			fmt.Fprintf(stderr, "bench-recall: %v\n", err)
			return 1
		}
		defer e.Close()
		emb = e
	default:
		fmt.Fprintf(stderr, "bench-recall: --dense %q: want builtin, none or endpoint\n", *denseFlag)
		return 2
	}
	if *memPath == "" || *qryPath == "" || *k <= 0 {
		fmt.Fprintln(stderr, "bench-recall: --memories and --queries are required, --k must be positive")
		fs.Usage()
		return 2
	}
	mems, err := readJSONL[benchMemory](*memPath)
	if err != nil {
		fmt.Fprintf(stderr, "bench-recall: %v\n", err)
		return 1
	}
	queries, err := readJSONL[benchQuery](*qryPath)
	if err != nil {
		fmt.Fprintf(stderr, "bench-recall: %v\n", err)
		return 1
	}

	t0 := time.Now()
	store, ids, err := loadBenchStore(mems, emb, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bench-recall: %v\n", err)
		return 1
	}
	store.Recall("", nil, memory.RecallOptions{}) // the store builds its index on the first recall
	if err := store.WaitSemantic(ctx); err != nil {
		fmt.Fprintf(stderr, "bench-recall: %v\n", err)
		return 1
	}
	build := time.Since(t0)

	out := bufio.NewWriter(stdout)
	lat := make([]time.Duration, 0, len(queries))
	opts := memory.RecallOptions{K: *k, NoCutoff: true}
	for _, q := range queries {
		t := time.Now()
		hits := store.Recall(q.Query, q.History, opts)
		lat = append(lat, time.Since(t))
		hitIDs := make([]string, len(hits))
		for i, h := range hits {
			hitIDs[i] = ids[h.Entry.ID]
		}
		line, err := json.Marshal(struct {
			ID   string   `json:"id"`
			Hits []string `json:"hits"`
		}{q.ID, hitIDs})
		if err != nil {
			fmt.Fprintf(stderr, "bench-recall: %v\n", err)
			return 1
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "bench-recall: write results: %v\n", err)
		return 1
	}
	slices.Sort(lat)
	fmt.Fprintf(stderr, "recall: %d queries, build %d ms, p50 %d us, p95 %d us\n",
		len(queries), build.Milliseconds(), percentile(lat, 50).Microseconds(), percentile(lat, 95).Microseconds())
	return 0
}

// loadBenchStore adds the memories to a fresh in-memory store, as an import
// would, and returns it with the memory id of each store ID. Memory ids
// ("D1:3") need not be valid entry IDs, so the entries get IDs of their own
// that follow the input order: entries saved at the same time keep it in
// the store's order, as entries saved one after another do in the app.
// The store fuses emb's dense signal with BM25 (none when nil). Memories
// the store refuses (invalid text) or merges into an earlier one
// (duplicates) are counted on stderr.
func loadBenchStore(mems []benchMemory, emb memory.Embedder, stderr io.Writer) (*memory.Store, map[string]string, error) {
	entries := make([]memory.Entry, len(mems))
	ids := make(map[string]string, len(mems))
	for i, m := range mems {
		id := fmt.Sprintf("m%07d", i)
		ids[id] = m.ID
		entries[i] = memory.Entry{ID: id, Kind: memory.KindFact, Text: m.Text, Source: memory.SourceImport,
			Created: m.Created, Updated: m.Created}
	}
	store := memory.NewInMemory(memory.Options{MaxEntries: max(len(entries), 1), Embedder: emb})
	res, err := store.AddAll(entries)
	if err != nil {
		return nil, nil, fmt.Errorf("load memories: %w", err)
	}
	invalid, merged := 0, 0
	for i, r := range res {
		switch {
		case r.Err != nil:
			invalid++
			fmt.Fprintf(stderr, "bench-recall: memory %s left out: %v\n", mems[i].ID, r.Err)
		case !r.New:
			merged++
		}
	}
	if invalid > 0 || merged > 0 {
		fmt.Fprintf(stderr, "bench-recall: %d memories left out, %d merged into an earlier duplicate\n", invalid, merged)
	}
	return store, ids, nil
}

// percentile of sorted durations (nearest rank); 0 for none.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

// readJSONL decodes a file of JSON lines.
func readJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var out []T
	dec := json.NewDecoder(f)
	for line := 1; ; line++ {
		var v T
		err := dec.Decode(&v)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: record %d: %w", path, line, err)
		}
		out = append(out, v)
	}
}
