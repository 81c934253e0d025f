package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func benchWriteFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const benchMems = `{"id": "D1:1", "text": "Caroline: I went to a LGBTQ support group yesterday.", "created": "2023-05-08T13:56:00Z"}
{"id": "D1:2", "text": "Melanie: That's great! I painted a sunrise last week.", "created": "2023-05-08T13:56:00Z"}
{"id": "D2:1", "text": "Melanie: We went camping in the mountains with the kids.", "created": "2023-06-01T10:00:00Z"}

{"id": "u7", "text": "Bart在圣诞节晚会上跳舞，感觉非常开心。", "created": "2023-12-25T12:00:00Z"}
`

const benchQueries = `{"id": "q0", "query": "When did Caroline go to the support group?", "relevant": ["D1:1"], "category": "temporal"}
{"id": "q1", "query": "When did Melanie paint a sunrise?", "relevant": ["D1:2"]}
{"id": "q2", "query": "继续", "history": ["元旦晚会我要跳舞"], "relevant": ["u7"]}
{"id": "q3", "query": "zzzz", "relevant": ["D2:1"]}
`

func TestBenchRecall(t *testing.T) {
	dir := t.TempDir()
	mem := benchWriteFile(t, dir, "x.memories.jsonl", benchMems)
	qry := benchWriteFile(t, dir, "x.queries.jsonl", benchQueries)
	var stdout, stderr bytes.Buffer
	code := benchRecall(context.Background(), []string{"--memories", mem, "--queries", qry, "--k", "2"}, &cliEnv{Stdout: &stdout, Stderr: &stderr, Getenv: noEnv})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	type row struct {
		ID   string   `json:"id"`
		Hits []string `json:"hits"`
	}
	var rows []row
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	if len(rows) != 4 {
		t.Fatalf("%d result lines, want 4:\n%s", len(rows), stdout.String())
	}
	wantFirst := map[string]string{"q0": "D1:1", "q1": "D1:2", "q2": "u7"}
	for _, r := range rows {
		if len(r.Hits) > 2 {
			t.Errorf("%s: %d hits, more than --k 2", r.ID, len(r.Hits))
		}
		if want, ok := wantFirst[r.ID]; ok && (len(r.Hits) == 0 || r.Hits[0] != want) {
			t.Errorf("%s: hits %v, want %s first", r.ID, r.Hits, want)
		}
		if r.Hits == nil {
			t.Errorf("%s: hits is null, want a list", r.ID)
		}
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^recall: 4 queries, build \d+ ms, p50 \d+ us, p95 \d+ us$`).MatchString(last) {
		t.Errorf("last stderr line %q does not follow the contract", last)
	}
}

// Memories go through the store as the app's do: a duplicate is merged into
// the earlier memory, text the store refuses is left out, and both are said
// on stderr before the timing line.
func TestBenchRecallThroughStore(t *testing.T) {
	dir := t.TempDir()
	mem := benchWriteFile(t, dir, "s.memories.jsonl", `{"id": "a:1", "text": "The kiln in the garage fires stoneware.", "created": "2023-05-08T13:56:00Z"}
{"id": "a:2", "text": "the kiln in the garage fires stoneware", "created": "2023-05-09T13:56:00Z"}
{"id": "a:3", "text": "bell \u0007 character", "created": "2023-05-09T13:56:00Z"}
`)
	qry := benchWriteFile(t, dir, "s.queries.jsonl", `{"id": "q0", "query": "what does the kiln fire?"}`+"\n")
	var stdout, stderr bytes.Buffer
	if code := benchRecall(context.Background(), []string{"--memories", mem, "--queries", qry}, &cliEnv{Stdout: &stdout, Stderr: &stderr, Getenv: noEnv}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != `{"id":"q0","hits":["a:1"]}` {
		t.Errorf("output %s, want the first of the duplicates alone", got)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) < 2 || !strings.Contains(stderr.String(), "memory a:3 left out") ||
		lines[len(lines)-2] != "bench-recall: 1 memories left out, 1 merged into an earlier duplicate" ||
		!strings.HasPrefix(lines[len(lines)-1], "recall: 1 queries") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestBenchRecallErrors(t *testing.T) {
	dir := t.TempDir()
	mem := benchWriteFile(t, dir, "m.jsonl", benchMems)
	bad := benchWriteFile(t, dir, "bad.jsonl", "{\"id\": \"q0\", \"query\": 3}\n")
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no flags", nil, 2},
		{"missing queries", []string{"--memories", mem}, 2},
		{"bad k", []string{"--memories", mem, "--queries", mem, "--k", "0"}, 2},
		{"unknown flag", []string{"--nope"}, 2},
		{"missing file", []string{"--memories", filepath.Join(dir, "none"), "--queries", mem}, 1},
		{"bad json", []string{"--memories", mem, "--queries", bad}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := benchRecall(context.Background(), tt.args, &cliEnv{Stdout: &stdout, Stderr: &stderr, Getenv: noEnv}); code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if stderr.Len() == 0 {
				t.Error("no message on stderr")
			}
		})
	}
}

func TestBenchRecallRegistered(t *testing.T) {
	dir := t.TempDir()
	mem := benchWriteFile(t, dir, "x.memories.jsonl", benchMems)
	qry := benchWriteFile(t, dir, "x.queries.jsonl", benchQueries)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"bench-recall", "--memories", mem, "--queries", qry}, &stdout, &stderr,
		func(string) string { return "" })
	if code != 0 || strings.Count(stdout.String(), "\n") != 4 {
		t.Errorf("engramctl bench-recall: exit %d, output %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
