package embedding

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// The cache's tests use two caches on one file for two processes: the
// file lock (flock, LockFileEx) excludes two opens in one process as it
// does two processes.

const testDim = 8

// clock is a settable time for the caches of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) addDays(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.AddDate(0, 0, n)
}

func keyOf(i int) key { return key(sha256.Sum256(fmt.Appendf(nil, "text %d", i))) }

func vecOf(i int) []float32 {
	v := make([]float32, testDim)
	for j := range v {
		v[j] = float32(i*testDim + j)
	}
	return v
}

func openTest(t *testing.T, dir string, clk *clock) *cache {
	t.Helper()
	c, err := openCache(dir, "embed-a", clk.now)
	if err != nil {
		t.Fatalf("openCache: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// putRange caches the vectors of texts from to to-1, in batches of 50.
func putRange(t *testing.T, c *cache, from, to int) {
	t.Helper()
	if err := putAll(c, from, to); err != nil {
		t.Fatalf("put: %v", err)
	}
}

func putAll(c *cache, from, to int) error {
	for start := from; start < to; start += 50 {
		var keys []key
		var vecs [][]float32
		for i := start; i < min(start+50, to); i++ {
			keys, vecs = append(keys, keyOf(i)), append(vecs, vecOf(i))
		}
		if err := c.put(keys, vecs); err != nil {
			return err
		}
	}
	return nil
}

// use looks up texts from to to-1 as Embed does, which stamps them.
func use(t *testing.T, c *cache, from, to int) {
	t.Helper()
	var keys []key
	for i := from; i < to; i++ {
		keys = append(keys, keyOf(i))
	}
	c.touch(keys)
}

// serves checks that c has the vectors of texts from to to-1 (want) or
// none of them.
func serves(t *testing.T, c *cache, from, to int, want bool) {
	t.Helper()
	for i := from; i < to; i++ {
		v, ok, err := c.get(keyOf(i))
		if err != nil {
			t.Fatalf("get %d: %v", i, err)
		}
		if ok != want || ok && !slices.Equal(v, vecOf(i)) {
			t.Fatalf("text %d: cached %v (want %v), vector %v", i, ok, want, v)
		}
	}
}

func fileOf(t *testing.T, dir string) (os.FileInfo, int) {
	t.Helper()
	fi, err := os.Stat(cachePath(dir, "embed-a"))
	if err != nil {
		t.Fatal(err)
	}
	c := &cache{model: "embed-a", dim: testDim}
	return fi, int(fi.Size()-int64(len(c.header(testDim)))) / c.recordSize()
}

// TestCompactionKeepsWhatIsUsed: 600 vectors are cached, then for 40
// days only 50 of them and 50 new ones are used; the next start rewrites
// the file with those 100, which it and later starts serve, and a process
// that stays open compacts on the first Embed of a day.
func TestCompactionKeepsWhatIsUsed(t *testing.T) {
	t.Parallel()
	dir, clk := t.TempDir(), newClock()
	c := openTest(t, dir, clk)
	putRange(t, c, 0, 600)
	clk.addDays(5)
	use(t, c, 0, 50) // used 5 days later, then not for 35 days: stale
	clk.addDays(35)
	use(t, c, 50, 100) // used 40 days after they were cached
	putRange(t, c, 1000, 1050)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, n := fileOf(t, dir); n != 650 {
		t.Fatalf("%d records before the restart, want 650", n)
	}

	again := openTest(t, dir, clk)
	if _, n := fileOf(t, dir); n != 100 {
		t.Fatalf("%d records after the restart, want the 100 in use", n)
	}
	serves(t, again, 50, 100, true)
	serves(t, again, 1000, 1050, true)
	serves(t, again, 0, 50, false)
	serves(t, again, 100, 600, false)
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	third := openTest(t, dir, clk)
	serves(t, third, 50, 100, true)
	serves(t, third, 1000, 1050, true)
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) != 0 {
		t.Fatalf("temporary files left: %q", names)
	}

	// Open for 40 more days, using only 20 of its vectors and 300 new ones.
	putRange(t, third, 2000, 2300)
	clk.addDays(40)
	use(t, third, 50, 70)
	third.compactDaily() // as the day's first Embed does
	third.bg.Wait()
	if _, n := fileOf(t, dir); n != 20 {
		t.Fatalf("%d records after a day's compaction, want 20", n)
	}
	serves(t, third, 50, 70, true)
	serves(t, third, 2000, 2300, false)
}

// TestNoCompactionBelowTheThreshold: a few stale vectors, or less than
// half of the file, leave the file as it is.
func TestNoCompactionBelowTheThreshold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		stale, fresh int
	}{
		{"few stale", compactMinStale - 1, 10},
		{"half stale", 400, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, clk := t.TempDir(), newClock()
			c := openTest(t, dir, clk)
			putRange(t, c, 0, tc.stale)
			clk.addDays(staleDays + 1)
			putRange(t, c, 10000, 10000+tc.fresh)
			before, _ := fileOf(t, dir)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			again := openTest(t, dir, clk)
			after, n := fileOf(t, dir)
			if !os.SameFile(before, after) || n != tc.stale+tc.fresh {
				t.Fatalf("the file was rewritten: %d records", n)
			}
			serves(t, again, 0, tc.stale, true)
		})
	}
}

// TestCompactionKeepsTheOtherProcessRecords: while one process compacts,
// the other adds vectors; it used old ones just before. None it added or
// used is lost, and it goes on with the new file.
func TestCompactionKeepsTheOtherProcessRecords(t *testing.T) {
	t.Parallel()
	dir, clk := t.TempDir(), newClock()
	app := openTest(t, dir, clk)
	ctl := openTest(t, dir, clk)
	putRange(t, app, 0, 1000)
	if err := ctl.refresh(); err != nil {
		t.Fatal(err)
	}
	clk.addDays(staleDays + 1) // both take the 1000 for stale
	use(t, ctl, 0, 100)        // app does not know
	putRange(t, ctl, 4000, 4100)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := putAll(ctl, 5000, 5400); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() {
		if err := app.compactIfStale(); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	serves(t, ctl, 0, 100, true) // from the old file or the new one
	serves(t, ctl, 5000, 5400, true)
	putRange(t, ctl, 6000, 6050) // into the new file, if it was replaced after ctl's puts
	for _, c := range []*cache{app, ctl, openTest(t, dir, clk)} {
		if err := c.refresh(); err != nil {
			t.Fatal(err)
		}
		serves(t, c, 0, 100, true)
		serves(t, c, 4000, 4100, true)
		serves(t, c, 5000, 5400, true)
		serves(t, c, 6000, 6050, true)
		serves(t, c, 100, 1000, false)
	}
	if _, n := fileOf(t, dir); n != 650 {
		t.Fatalf("%d records, want the 650 in use", n)
	}
}

// TestCutShortByTheOtherProcess: a record the other process cut short (it
// crashed while writing) is cut off before this one appends, so that no
// later record is misread; a file cut short still loads and compacts.
func TestCutShortByTheOtherProcess(t *testing.T) {
	t.Parallel()
	dir, clk := t.TempDir(), newClock()
	a := openTest(t, dir, clk)
	putRange(t, a, 0, 300)
	b := openTest(t, dir, clk)
	f, err := os.OpenFile(cachePath(dir, "embed-a"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 17)); err != nil { // b's crash in its last write
		t.Fatal(err)
	}
	_ = f.Close()
	putRange(t, a, 300, 320)
	if err := b.refresh(); err != nil {
		t.Fatal(err)
	}
	serves(t, b, 0, 320, true)
	serves(t, openTest(t, dir, clk), 0, 320, true)

	path := cachePath(dir, "embed-a")
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()-5); err != nil { // a crash in a's last write
		t.Fatal(err)
	}
	cut := openTest(t, dir, clk)
	serves(t, cut, 0, 319, true)
	serves(t, cut, 319, 320, false)
	if fi, n := fileOf(t, dir); fi.Size() != int64(len(cut.header(testDim))+n*cut.recordSize()) || n != 319 {
		t.Fatalf("the cut record was not cut off: %d bytes", fi.Size())
	}
	clk.addDays(staleDays + 1)
	c := openTest(t, dir, clk)
	if _, n := fileOf(t, dir); n != 0 {
		t.Fatalf("%d records after compacting, want none", n)
	}
	putRange(t, c, 0, 10)
	serves(t, openTest(t, dir, clk), 0, 10, true)
}

// TestUnusedModelFilesAreRemoved: the cache files of other models unused
// for a month go when a cache is opened; recent ones and other files stay.
func TestUnusedModelFilesAreRemoved(t *testing.T) {
	t.Parallel()
	dir, clk := t.TempDir(), newClock()
	for _, m := range []string{"old-model", "recent-model"} {
		c, err := openCache(dir, m, clk.now)
		if err != nil {
			t.Fatal(err)
		}
		putRange(t, c, 0, 2)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	oldPath, recentPath := cachePath(dir, "old-model"), cachePath(dir, "recent-model")
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, age := range map[string]int{oldPath: staleDays + 1, recentPath: staleDays - 1, notes: 400} {
		mt := clk.now().AddDate(0, 0, -age)
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	openTest(t, dir, clk)
	for path, want := range map[string]bool{oldPath: false, lockPath(oldPath): false, recentPath: true, notes: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", filepath.Base(path), err == nil, want)
		}
	}
}
