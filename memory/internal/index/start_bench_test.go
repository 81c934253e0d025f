package index

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"engram/memory/internal/lexicon"
)

// startEnv makes the test binary run TestLexiconStartChild only, in a
// process of its own (the lexicon loads once per process).
const startEnv = "ENGRAM_LEXICON_START_CHILD"

// BenchmarkLexiconStart measures what the lexicon adds to the start of the
// app, in a fresh process each time: the time of lexicon.Load plus the
// first indexing and cross-lingual search that use it (ms), and the
// resident memory they add (rss-MB, from /proc/self/status).
func BenchmarkLexiconStart(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("no /proc/self/status to read the resident memory from")
	}
	var ms, rss []float64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLexiconStartChild$")
		cmd.Env = append(os.Environ(), startEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v", err)
		}
		var t, r float64
		if _, err := fmt.Sscanf(lastLine(string(out)), "lexicon-start %g %g", &t, &r); err != nil {
			b.Fatalf("child said %q: %v", out, err)
		}
		ms, rss = append(ms, t), append(rss, r)
	}
	b.ReportMetric(median(ms), "ms")
	b.ReportMetric(median(rss), "rss-MB")
}

// TestLexiconStartChild is the child of BenchmarkLexiconStart; it does
// nothing unless started by it.
func TestLexiconStartChild(t *testing.T) {
	if os.Getenv(startEnv) == "" {
		t.Skip("run by BenchmarkLexiconStart")
	}
	before := residentKB(t)
	start := time.Now()
	if err := lexicon.Load(); err != nil {
		t.Fatal(err)
	}
	ix := New() // indexing folds with the lexicon too
	ix.Put(Doc{ID: "a", Text: "The user is allergic to peanuts."})
	ix.Put(Doc{ID: "b", Text: "用户周末喜欢去山里徒步。"})
	hits := ix.Search("点外卖要注意花生过敏吗", nil, Options{K: 5})
	took := time.Since(start)
	after := residentKB(t)
	if len(hits) == 0 || hits[0].ID != "a" {
		t.Fatalf("first search = %v, want a", hits)
	}
	fmt.Printf("lexicon-start %g %g\n", float64(took.Microseconds())/1000, float64(after-before)/1024)
}

// residentKB reads VmRSS from /proc/self/status.
func residentKB(t *testing.T) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "lexicon-start") {
			return lines[i]
		}
	}
	return ""
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
