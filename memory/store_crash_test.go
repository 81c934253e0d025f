package memory_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"engram/memory"
)

// TestStoreWriterHelper is not a test: it is the writer process of the
// multi-process tests, run by re-executing the test binary. It adds
// ENGRAM_TEST_WRITER_COUNT entries to the store at ENGRAM_TEST_WRITER (with
// the state directory ENGRAM_TEST_WRITER_STATE, if set), one Add per entry,
// and prints "added <id>" after each Add returns.
func TestStoreWriterHelper(t *testing.T) {
	path := os.Getenv("ENGRAM_TEST_WRITER")
	if path == "" {
		t.Skip("helper process for the multi-process tests")
	}
	prefix := os.Getenv("ENGRAM_TEST_WRITER_PREFIX")
	n, _ := strconv.Atoi(os.Getenv("ENGRAM_TEST_WRITER_COUNT"))
	s, err := memory.Open(path, memory.Options{MaxEntries: 1 << 20, StateDir: os.Getenv("ENGRAM_TEST_WRITER_STATE")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for i := range n {
		e, isNew, err := s.Add(memory.Entry{Text: fmt.Sprintf("%s writes entry %d of the run", prefix, i)})
		if err != nil || !isNew {
			fmt.Fprintf(os.Stderr, "add %d: new %v, %v\n", i, isNew, err)
			os.Exit(4)
		}
		fmt.Fprintf(os.Stdout, "added %s\n", e.ID)
	}
	os.Exit(0)
}

// writer starts a writer process.
func writer(t *testing.T, path, prefix string, count int) (*exec.Cmd, io.ReadCloser) {
	return writerWithState(t, path, "", prefix, count)
}

// writerWithState starts a writer process with a state directory.
func writerWithState(t *testing.T, path, state, prefix string, count int) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreWriterHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		"ENGRAM_TEST_WRITER_STATE="+state,
		"ENGRAM_TEST_WRITER="+path,
		"ENGRAM_TEST_WRITER_PREFIX="+prefix,
		"ENGRAM_TEST_WRITER_COUNT="+strconv.Itoa(count))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// addedIDs reads the IDs a writer printed; a last line cut off by a kill
// does not count.
func addedIDs(r io.Reader, first chan<- struct{}) []string {
	var ids []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return ids
		}
		if id, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "added "); ok {
			ids = append(ids, id)
			if len(ids) == 1 && first != nil {
				close(first)
			}
		}
	}
}

func TestStoreTwoProcesses(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 100
	}
	path := filepath.Join(t.TempDir(), "memory.json")
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for w := range 2 {
		cmd, out := writer(t, path, fmt.Sprintf("process %c", 'A'+w), n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[w] = len(addedIDs(out, nil))
			if err := cmd.Wait(); err != nil {
				t.Errorf("writer %d: %v", w, err)
			}
		}()
	}
	wg.Wait()
	if counts[0] != n || counts[1] != n {
		t.Fatalf("writers reported %v adds, want %d each", counts, n)
	}
	s := openStore(t, path, memory.Options{MaxEntries: 1 << 20})
	if s.Err() != nil || s.Len() != 2*n {
		t.Fatalf("store holds %d entries (err %v), want exactly %d", s.Len(), s.Err(), 2*n)
	}
}

func TestStoreCrashKill(t *testing.T) {
	iterations := 200
	if testing.Short() {
		iterations = 20
	}
	path := filepath.Join(t.TempDir(), "memory.json")
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill points seeded with %d", seed)
	rng := rand.New(rand.NewPCG(1, seed))
	var confirmed []string
	for it := range iterations {
		cmd, out := writer(t, path, fmt.Sprintf("crash run %d", it), 40)
		first := make(chan struct{})
		done := make(chan []string)
		go func() { done <- addedIDs(out, first) }()
		select {
		case <-first:
		case <-time.After(10 * time.Second):
			t.Fatal("writer printed nothing")
		}
		// Kill at a random point of the run: mid-write, mid-fsync, holding the lock.
		time.Sleep(time.Duration(rng.IntN(25000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		confirmed = append(confirmed, <-done...)
		cmd.Wait()

		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		entries, _, err := memory.ParseFile(data, time.Now())
		if err != nil {
			t.Fatalf("iteration %d: the file does not parse: %v", it, err)
		}
		have := make(map[string]bool, len(entries))
		for _, e := range entries {
			have[e.ID] = true
		}
		for _, id := range confirmed {
			if !have[id] {
				t.Fatalf("iteration %d: entry %s was added but is not in the file", it, id)
			}
		}
	}
	s := openStore(t, path, memory.Options{MaxEntries: 1 << 20})
	if s.Err() != nil || s.Len() < len(confirmed) {
		t.Fatalf("final store: %d entries, err %v; %d confirmed", s.Len(), s.Err(), len(confirmed))
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".memory.json.tmp-*")); len(tmps) != 0 {
		t.Errorf("Open left stale temporary files: %v", tmps)
	}
	if corrupt, _ := filepath.Glob(path + ".corrupt-*"); len(corrupt) != 0 {
		t.Errorf("a file was quarantined: %v", corrupt)
	}
	t.Logf("%d iterations, %d confirmed adds", iterations, len(confirmed))
}

// Four writers with memory.json.lock deleted underneath them again and
// again (a person tidying the folder) lose nothing that was acknowledged:
// the file holds every add, and no writer removed another's temporary file.
func TestStoreLockFileDeletedUnderFourWriters(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	dir := t.TempDir()
	path, state := filepath.Join(dir, "memory.json"), t.TempDir()
	stop := make(chan struct{})
	deleted := 0
	var deleter sync.WaitGroup
	deleter.Add(1)
	go func() {
		defer deleter.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				if os.Remove(path+".lock") == nil {
					deleted++
				}
			}
		}
	}()
	var wg sync.WaitGroup
	ids := make([][]string, 4)
	for w := range 4 {
		cmd, out := writerWithState(t, path, state, fmt.Sprintf("writer %d", w), n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[w] = addedIDs(out, nil)
			if err := cmd.Wait(); err != nil {
				t.Errorf("writer %d: %v", w, err)
			}
		}()
	}
	wg.Wait()
	close(stop)
	deleter.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, _, err := memory.ParseFile(data, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.ID] = true
	}
	lost := 0
	for w := range 4 {
		if len(ids[w]) != n {
			t.Errorf("writer %d acknowledged %d adds, want %d", w, len(ids[w]), n)
		}
		for _, id := range ids[w] {
			if !have[id] {
				lost++
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged adds are not in the file", lost, 4*n)
	}
	t.Logf("lock file deleted %d times under %d adds", deleted, 4*n)
}
