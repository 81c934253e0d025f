package memory_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
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
// secret) that Secret flags, and fails on any.
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
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if len(sc.Bytes()) == 0 {
				continue
			}
			var m struct {
				ID   string `json:"id"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				f.Close()
				t.Fatalf("%s: %v", path, err)
			}
			total++
			if what, ok := memory.Secret(m.Text); ok {
				flagged++
				t.Errorf("%s id=%s flagged as %s: %q", filepath.Base(filepath.Dir(path)), m.ID, what, m.Text)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
	}
	t.Logf("eval memories: %d, flagged as secrets: %d (%.3f%%)", total, flagged, 100*float64(flagged)/float64(total))
}
