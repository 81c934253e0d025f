package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"engram/agent"
	"engram/memory"
)

// The window's resident memory after start: the real binary under Xvfb,
// with its own HOME, sampled from /proc/PID/smaps_rollup. Anonymous is
// counted, not Rss: under Xvfb the software GL maps libLLVM's ~60 MB of
// file pages, which a real driver does not.
//
//	go test -tags migrated_fynedo -run '^$' -bench WindowMemory -benchtime 3x ./cmd/engram/
//
// reports anon-MB-2s (2 s after start) and peak-anon-MB (the highest
// sample in the first 10 s), medians of the runs, for an empty profile and
// for one with 1,000 chats of 40 messages and 10,000 memories (each run
// lasts 10 s, plus writing its profile). The figures are reported, not
// asserted: the machine's load moves them.

// Sizes of the big profile.
const (
	rssChats    = 1000
	rssMessages = 40
	rssMemories = 10000
)

func BenchmarkWindowMemory(b *testing.B) {
	if testing.Short() {
		b.Skip("starts the app under Xvfb")
	}
	bin := buildApp(b)
	display := startDisplay(b)
	for _, p := range []struct {
		name string
		fill func(tb testing.TB, home string)
	}{
		{"empty", func(testing.TB, string) {}},
		{"chats1000-memories10000", fillBigProfile},
	} {
		b.Run(p.name, func(b *testing.B) {
			var at2, peak []float64
			for range b.N {
				b.StopTimer()
				home := b.TempDir()
				p.fill(b, home)
				b.StartTimer()
				a, pk := sampleWindow(b, bin, display, home)
				at2, peak = append(at2, a), append(peak, pk)
			}
			b.ReportMetric(median(at2), "anon-MB-2s")
			b.ReportMetric(median(peak), "peak-anon-MB")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// buildApp builds the app into a temporary folder, with the test's build
// tags.
func buildApp(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "engram")
	cmd := exec.Command("go", "build", "-tags", "migrated_fynedo", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build the app: %v\n%s", err, out)
	}
	return bin
}

// startDisplay starts Xvfb on a free display and returns its name; it
// stops with the test.
func startDisplay(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		tb.Skip("Xvfb is missing")
	}
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		tb.Fatalf("start Xvfb: %v", err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		tb.Fatalf("Xvfb gave no display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// sampleWindow runs the app with home as its HOME and XDG folders,
// samples its anonymous memory every 0.25 s for 10 s and returns, in MB,
// the sample at 2 s and the highest one.
func sampleWindow(tb testing.TB, bin, display, home string) (at2, peak float64) {
	tb.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, k := range []string{"HOME=", "XDG_", "DISPLAY=", "OPENAI_", "ENGRAM_", "WAYLAND_DISPLAY="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	}), "DISPLAY="+display, "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local/state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		// No local model server is probed: the config names an endpoint.
		"OPENAI_BASE_URL=http://127.0.0.1:9/v1", "ENGRAM_MODEL=none")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start the app: %v", err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	rollup := fmt.Sprintf("/proc/%d/smaps_rollup", cmd.Process.Pid)
	start := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for i := 1; i <= 40; i++ {
		<-tick.C
		kb, err := anonymousKB(rollup)
		if err != nil {
			tb.Fatalf("the app ended after %v: %v\n%s", time.Since(start).Round(time.Millisecond), err, stderr.String())
		}
		mb := float64(kb) / 1024
		peak = max(peak, mb)
		if i == 8 {
			at2 = mb
		}
	}
	return at2, peak
}

// anonymousKB reads the Anonymous line of a smaps_rollup file, in kB.
func anonymousKB(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "Anonymous:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("%s has no Anonymous line", path)
}

// fillBigProfile writes rssChats chats of rssMessages messages and
// rssMemories memories into home's XDG folders.
func fillBigProfile(tb testing.TB, home string) {
	tb.Helper()
	paths := agent.DefaultPaths(filepath.Join(home, ".config"), filepath.Join(home, ".local/share"),
		filepath.Join(home, ".local/state"))
	writeChats(tb, paths.ChatsDir(), rssChats, rssMessages)
	writeMemories(tb, paths.GlobalMemory(), rssMemories)
}

// writeChats writes n chat files of m messages each, questions and
// answers of everyday length, in the format the app writes.
func writeChats(tb testing.TB, dir string, n, m int) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		created := t0.Add(time.Duration(i) * time.Hour)
		c := agent.Chat{Info: agent.ChatInfo{ID: fmt.Sprintf("20260101-%06d-%08x", i, i), Created: created,
			Title: fmt.Sprintf("Planning the trip to Lisbon, part %d", i), AutoRecall: true}}
		for j := range m {
			msg := agent.Message{ID: fmt.Sprintf("m-%08x%08x", i, j), Time: created.Add(time.Duration(j) * time.Minute)}
			if j%2 == 0 {
				msg.Role = agent.RoleUser
				msg.Text = fmt.Sprintf("Question %d of chat %d: which neighbourhoods are quiet in the evening, and how far are they from the river by tram?", j, i)
			} else {
				msg.Role = agent.RoleAssistant
				msg.ReplyTo = c.Messages[j-1].ID
				msg.Text = strings.Repeat(fmt.Sprintf("Answer %d of chat %d: Alfama and Graça are quiet after dark; tram 28 reaches the river in about fifteen minutes. ", j, i), 6)
			}
			c.Messages = append(c.Messages, msg)
		}
		c.Updated = c.Messages[m-1].Time
		b, err := json.MarshalIndent(c, "", " ")
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.ID+".json"), append(b, '\n'), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
}

// writeMemories writes a memory store of n entries.
func writeMemories(tb testing.TB, path string, n int) {
	tb.Helper()
	es := make([]memory.Entry, n)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range es {
		es[i] = memory.Entry{Kind: memory.Kinds[i%len(memory.Kinds)], Created: t0.Add(time.Duration(i) * time.Minute),
			Text: fmt.Sprintf("Memory %d: the user prefers short answers about topic %d, with code in Go and tests next to it; remember variant %d.", i, i*7, i*13)}
	}
	s, err := memory.Open(path, memory.Options{MaxEntries: n + 1000})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	res, err := s.AddAll(es)
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil || !r.New {
			tb.Fatalf("seed memory: new=%v err=%v", r.New, r.Err)
		}
	}
}

// median is the median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}
