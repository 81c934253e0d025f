package main

import (
	"bufio"
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

// benchRecall implements `engramctl bench-recall` (the contract of
// shared/eval/README.md): it loads the memories into a fresh index, keeping
// their ids and creation times, and prints for every query the ids of the
// memories recalled, best first, at most --k of them. Recall goes through
// Index.Search exactly as the app's auto-recall does, with only the cut-off
// lifted and K raised. Its last line on stderr is the timing.
func benchRecall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench-recall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	memPath := fs.String("memories", "", "memories `file` (JSON lines: id, text, created)")
	qryPath := fs.String("queries", "", "queries `file` (JSON lines: id, query, history)")
	k := fs.Int("k", 50, "hits per query at most")
	if err := fs.Parse(args); err != nil {
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
	entries := make([]memory.Entry, len(mems))
	for i, m := range mems {
		entries[i] = memory.Entry{ID: m.ID, Kind: memory.KindFact, Text: m.Text, Source: memory.SourceImport,
			Created: m.Created, Updated: m.Created}
	}
	ix := memory.NewIndex()
	ix.PutAll(entries)
	build := time.Since(t0)

	out := bufio.NewWriter(stdout)
	lat := make([]time.Duration, 0, len(queries))
	opts := memory.RecallOptions{K: *k, NoCutoff: true}
	for _, q := range queries {
		t := time.Now()
		hits := ix.Search(q.Query, q.History, opts)
		lat = append(lat, time.Since(t))
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.Entry.ID
		}
		line, err := json.Marshal(struct {
			ID   string   `json:"id"`
			Hits []string `json:"hits"`
		}{q.ID, ids})
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
