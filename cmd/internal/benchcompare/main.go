// Command benchcompare runs the engine's key benchmarks at a base commit and
// in the working tree, interleaved in one session, and prints each metric's
// median on both sides and their ratio. It is what `make bench-compare
// BASE=<commit>` runs, and how a performance claim is made: on a noisy
// machine only medians of interleaved runs compare.
//
// The base is checked out with `git worktree add` in a new folder beside
// the repository (so the relative paths tests use, such as
// ../../shared/eval, resolve the same way) and removed afterwards. Each
// benchmark runs in a process of its own, base and head alternating, so a
// process's peak resident memory (maxrss-MB) is that benchmark's.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// bench names one benchmark: the package that holds it and the -test.bench
// pattern that selects it (with its sub-benchmarks).
type bench struct {
	pkg, pattern string
}

// defaultBenches are the key benchmarks: open 10k, the first recall after an
// open, add, open and search 100k, load 100k, the eval set's build and query, recall at 10k and
// 100k chunks, Put, and the index build of 100k chunks.
var defaultBenches = []bench{
	{"./memory", "^BenchmarkOpen10k$"},
	{"./memory", "^BenchmarkOpenFirstRecall10k$"},
	{"./memory", "^BenchmarkAdd10k$"},
	{"./memory", "^BenchmarkOpen100kSearch$"},
	{"./memory", "^BenchmarkAddAll100k$"},
	{"./memory", "^BenchmarkRecallEvalSet$"},
	{"./memory/internal/index", "^BenchmarkSearch$"},
	{"./memory/internal/index", "^BenchmarkPut$"},
	{"./memory/internal/index", "^BenchmarkBuild$"},
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench-compare:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench-compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "the commit to compare against (required)")
	count := fs.Int("count", 5, "interleaved runs of each benchmark on each side")
	benchtime := fs.String("benchtime", "", "passed to -test.benchtime (default: go test's)")
	only := fs.String("bench", "", "only the default benchmarks whose pattern contains this text")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *base == "" {
		return fmt.Errorf("-base is required (a commit, e.g. BASE=HEAD~1)")
	}
	head, err := gitOutput(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	sha, err := gitOutput(ctx, head, "rev-parse", "--short", *base)
	if err != nil {
		return err
	}
	// A folder of its own, so two comparisons against one base can run at
	// once (git adds a worktree into an empty folder).
	baseTree, err := os.MkdirTemp(filepath.Dir(head), ".bench-base-"+sha+"-")
	if err != nil {
		return fmt.Errorf("folder for the base: %w", err)
	}
	if _, err := gitOutput(ctx, head, "worktree", "add", "--detach", "--force", baseTree, sha); err != nil {
		os.Remove(baseTree)
		return err
	}
	defer gitOutput(context.Background(), head, "worktree", "remove", "--force", baseTree)
	binDir, err := os.MkdirTemp("", "bench-compare-")
	if err != nil {
		return fmt.Errorf("temporary folder: %w", err)
	}
	defer os.RemoveAll(binDir)

	var benches []bench
	for _, b := range defaultBenches {
		if strings.Contains(b.pattern, *only) {
			benches = append(benches, b)
		}
	}
	sides := []side{{name: "base", tree: baseTree}, {name: "head", tree: head}}
	for i := range sides {
		if err := sides[i].build(ctx, benches, binDir, stderr); err != nil {
			return err
		}
	}
	results := map[string]map[string][]float64{} // side → "benchmark metric" → values
	var order []string
	for round := range *count {
		for _, b := range benches {
			// Alternate which side goes first so a drift of the machine's
			// speed during a round falls on both.
			for k := range sides {
				s := sides[(k+round)%2]
				bin, ok := s.bins[b.pkg]
				if !ok {
					continue
				}
				fmt.Fprintf(stderr, "round %d/%d %s %s %s\n", round+1, *count, s.name, b.pkg, b.pattern)
				got, err := runBench(ctx, bin, filepath.Join(s.tree, b.pkg), b.pattern, *benchtime)
				if err != nil {
					return fmt.Errorf("%s %s: %w", s.name, b.pattern, err)
				}
				if len(got) == 0 {
					fmt.Fprintf(stderr, "%s has no %s or it skipped: it shows as absent\n", s.name, b.pattern)
				}
				if results[s.name] == nil {
					results[s.name] = map[string][]float64{}
				}
				for _, m := range got {
					key := m.bench + " " + m.unit
					if !slices.Contains(order, key) {
						order = append(order, key)
					}
					results[s.name][key] = append(results[s.name][key], m.value)
				}
			}
		}
	}
	fmt.Fprintf(stdout, "base %s, head the working tree of %s; medians of %d interleaved runs\n", sha, head, *count)
	fmt.Fprintf(stdout, "%-52s %-10s %14s %14s %8s\n", "benchmark", "metric", "base", "head", "head/base")
	for _, key := range order {
		name, unit, _ := strings.Cut(key, " ")
		b, h := results["base"][key], results["head"][key]
		fmt.Fprintf(stdout, "%-52s %-10s %14s %14s %8s\n", name, unit, medianText(b), medianText(h), ratioText(b, h))
	}
	return nil
}

// side is one tree under comparison and its test binaries by package.
type side struct {
	name, tree string
	bins       map[string]string
}

// build compiles the test binary of every package the benchmarks need; a
// package the tree does not have is left out (its benchmarks show as absent).
func (s *side) build(ctx context.Context, benches []bench, binDir string, stderr io.Writer) error {
	s.bins = map[string]string{}
	for _, b := range benches {
		if _, done := s.bins[b.pkg]; done {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.tree, b.pkg)); err != nil {
			fmt.Fprintf(stderr, "%s has no %s: its benchmarks are left out\n", s.name, b.pkg)
			continue
		}
		bin := filepath.Join(binDir, s.name+strings.ReplaceAll(b.pkg, "/", "_")+".test")
		cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, b.pkg)
		cmd.Dir = s.tree
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s %s: %w\n%s", s.name, b.pkg, err, out)
		}
		s.bins[b.pkg] = bin
	}
	return nil
}

// metric is one figure of one benchmark line.
type metric struct {
	bench, unit string
	value       float64
}

// runBench runs one benchmark pattern in a process of its own in dir, with
// HOME and the XDG folders in a temporary folder, and returns the figures of
// its result lines plus the process's peak resident memory; none when no
// benchmark matched or it skipped.
func runBench(ctx context.Context, bin, dir, pattern, benchtime string) ([]metric, error) {
	home, err := os.MkdirTemp("", "bench-compare-home-")
	if err != nil {
		return nil, fmt.Errorf("temporary home: %w", err)
	}
	defer os.RemoveAll(home)
	args := []string{"-test.run", "^$", "-test.bench", pattern, "-test.benchmem", "-test.count", "1"}
	if benchtime != "" {
		args = append(args, "-test.benchtime", benchtime)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out.String())
	}
	ms := parseBenchOutput(&out)
	if len(ms) == 0 {
		return nil, nil // a benchmark the tree does not have yet, or one that skipped
	}
	if rss, ok := peakRSSMB(cmd.ProcessState); ok {
		ms = append(ms, metric{bench: ms[0].bench, unit: "maxrss-MB", value: rss})
	}
	return ms, nil
}

// parseBenchOutput reads the result lines of `go test -bench` output:
// "BenchmarkX-2  N  V1 unit1  V2 unit2 …". The -GOMAXPROCS suffix is dropped.
func parseBenchOutput(r io.Reader) []metric {
	var ms []metric
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			ms = append(ms, metric{bench: name, unit: f[i+1], value: v})
		}
	}
	return ms
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func medianText(vs []float64) string {
	if len(vs) == 0 {
		return "absent"
	}
	m := median(vs)
	switch {
	case m >= 100:
		return strconv.FormatFloat(m, 'f', 0, 64)
	case m >= 1:
		return strconv.FormatFloat(m, 'f', 2, 64)
	}
	return strconv.FormatFloat(m, 'g', 3, 64)
}

func ratioText(base, head []float64) string {
	if len(base) == 0 || len(head) == 0 || median(base) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", median(head)/median(base))
}

func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return strings.TrimSpace(string(out)), nil
}
