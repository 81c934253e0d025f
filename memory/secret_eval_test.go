package memory_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/memory"
)

// secretEvalDir is the recall evaluation set beside the repository (see
// shared/eval/README.md); ENGRAM_EVAL points elsewhere, as for a worktree.
func secretEvalDir() string {
	if dir := os.Getenv("ENGRAM_EVAL"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "shared", "eval")
}

// TestSecretFalsePositivesOnEval counts the eval memories (none of them a
// secret) that Secret flags, and fails on any; it also reports how many
// of the queries and their chat histories it would flag.
func TestSecretFalsePositivesOnEval(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(secretEvalDir(), "*", "*.memories.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no eval memories in %s", secretEvalDir())
	}
	total, flagged := 0, 0
	for _, path := range files {
		forEachJSONLine(t, path, func(line []byte) {
			var m struct {
				ID   string `json:"id"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			total++
			if what, ok := memory.Secret(m.Text); ok {
				flagged++
				t.Errorf("%s id=%s flagged as %s: %q", filepath.Base(filepath.Dir(path)), m.ID, what, m.Text)
			}
		})
	}
	t.Logf("eval memories: %d, flagged as secrets: %d (%.3f%%)", total, flagged, 100*float64(flagged)/float64(total))
	texts, hits := 0, 0
	for _, path := range files {
		queries := strings.TrimSuffix(path, ".memories.jsonl") + ".queries.jsonl"
		forEachJSONLine(t, queries, func(line []byte) {
			var q struct {
				Query   string   `json:"query"`
				History []string `json:"history"`
			}
			if err := json.Unmarshal(line, &q); err != nil {
				t.Fatalf("%s: %v", queries, err)
			}
			for _, s := range append(q.History, q.Query) {
				texts++
				if what, ok := memory.Secret(s); ok {
					hits++
					t.Logf("query text flagged as %s: %q", what, s)
				}
			}
		})
	}
	t.Logf("eval queries and histories: %d texts, flagged as secrets: %d", texts, hits)
}

// forEachJSONLine calls f with each non-empty line of the file at path, if
// there is one.
func forEachJSONLine(t *testing.T, path string, f func(line []byte)) {
	t.Helper()
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			f(sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
}
