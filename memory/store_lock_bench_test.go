package memory

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// foreignLockHold is how long the other process of
// BenchmarkReadDuringForeignLock holds the store's lock.
const foreignLockHold = 200 * time.Millisecond

// TestForeignLockHelper is not a test: it is the other process of
// BenchmarkReadDuringForeignLock, run by re-executing the test binary. It
// takes the file locks of the store at ENGRAM_TEST_LOCK_HOLD as a writer
// does, prints "locked", holds them for foreignLockHold and exits.
func TestForeignLockHelper(t *testing.T) {
	path := os.Getenv("ENGRAM_TEST_LOCK_HOLD")
	if path == "" {
		t.Skip("helper process for BenchmarkReadDuringForeignLock")
	}
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	unlock, err := s.lockFiles()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	fmt.Println("locked")
	time.Sleep(foreignLockHold)
	unlock()
	os.Exit(0)
}

// BenchmarkReadDuringForeignLock measures List and Recall while another
// process holds the store's lock for foreignLockHold and a write of this
// process waits for it: each iteration is one such window, and only the
// reads that start inside it count. It reports the median over the
// windows of each window's median latency, so that a window whose write
// was slow to start waiting (a busy machine) does not outweigh the rest.
func BenchmarkReadDuringForeignLock(b *testing.B) {
	path := filepath.Join(b.TempDir(), "memory.json")
	s, err := Open(path, Options{MaxEntries: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	es := make([]Entry, 500)
	for i := range es {
		es[i] = Entry{Text: fmt.Sprintf("note %d: the build of service %d runs on port %d", i, i%37, 8000+i)}
	}
	if _, err := s.AddAll(es); err != nil {
		b.Fatal(err)
	}
	s.Recall("which port does the service use", nil, RecallOptions{})
	var lists, recalls []time.Duration // one per window: its median
	reads, windows := 0, 0
	for ; b.Loop(); windows++ {
		w := windows
		held, done := holdForeignLock(b, path)
		wrote := make(chan error, 1)
		text := fmt.Sprintf("written while locked, window %d", w)
		go func() {
			_, _, err := s.Add(Entry{Text: text})
			wrote <- err
		}()
		time.Sleep(50 * time.Millisecond) // the write is now waiting for the lock
		var wl, wr []time.Duration
		for i := w; time.Now().Before(held); i++ { // windows start with List and Recall in turn
			t0 := time.Now()
			if i%2 == 0 {
				s.List()
				wl = append(wl, time.Since(t0))
			} else {
				s.Recall("which port does the service use", nil, RecallOptions{})
				wr = append(wr, time.Since(t0))
			}
		}
		reads += len(wl) + len(wr)
		if len(wl) > 0 {
			lists = append(lists, median(wl))
		}
		if len(wr) > 0 {
			recalls = append(recalls, median(wr))
		}
		if err := <-wrote; err != nil {
			b.Fatal(err)
		}
		done()
	}
	b.ReportMetric(float64(median(lists)), "p50-ns/list")
	b.ReportMetric(float64(median(recalls)), "p50-ns/recall")
	b.ReportMetric(float64(reads)/float64(windows), "reads/window")
}

// holdForeignLock starts the helper process and waits until it holds the
// lock; it returns when the hold ends and a function that waits for the
// process.
func holdForeignLock(b *testing.B, path string) (time.Time, func()) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestForeignLockHelper$", "-test.count=1", "-test.bench=^$")
	cmd.Env = append(os.Environ(), "ENGRAM_TEST_LOCK_HOLD="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		b.Fatalf("lock helper: %q, %v", line, err)
	}
	held := time.Now().Add(foreignLockHold)
	return held, func() {
		if err := cmd.Wait(); err != nil {
			b.Fatalf("lock helper: %v", err)
		}
	}
}

// median is the middle of ds (0 if empty).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}
