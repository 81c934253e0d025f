package memory

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	historySeed  = flag.Uint64("sync.seed", 0, "run only the sync history with this seed (TestSyncHistories)")
	historySteps = flag.Int("sync.steps", 0, "steps of each sync history (default: 50, or 200 for LoseNothing)")
)

// TestSyncHistories runs random histories of 2–4 devices syncing one
// memory file by every way a sync tool and a person have (see
// runHistory); TestSyncHistoriesLoseNothing runs many more (make stress).
func TestSyncHistories(t *testing.T) {
	t.Parallel()
	if *historySeed != 0 {
		runHistory(t, *historySeed, cmpOr(*historySteps, 200))
		return
	}
	for seed := uint64(1); seed <= 6; seed++ {
		runHistory(t, seed, cmpOr(*historySteps, 50))
	}
}

func TestSyncHistoriesLoseNothing(t *testing.T) {
	if testing.Short() || *historySeed != 0 {
		t.Skip("long: make stress")
	}
	t.Parallel()
	base := uint64(time.Now().UnixNano())
	start := time.Now()
	n, steps := historiesLong, cmpOr(*historySteps, 200)
	for i := range uint64(n) {
		if !runHistory(t, base+i, steps) {
			return
		}
	}
	t.Logf("%d histories × %d steps in %v", n, steps, time.Since(start).Round(time.Millisecond))
}

func ptr[T any](v T) *T { return &v }

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// histDevice is one machine of a history: its own folder with memory.json
// and its own state folder, a clock off by up to 3 hours, and a store
// while its process runs.
type histDevice struct {
	name, path, state, machine string
	offset                     time.Duration
	s                          *Store
	past                       [][]byte // earlier versions of its file, for older copies
}

// history is one random history and what it must show at the end.
type history struct {
	t     *testing.T
	seed  uint64
	rng   *rand.Rand
	now   time.Time
	devs  []*histDevice
	steps []string
	// added holds the adds acknowledged and not removed since; removed the
	// removals acknowledged. Both drop an ID whose every copy the history
	// itself destroyed (see prune). A removal of an entry edited anywhere
	// may lose to the edit (concurrent changes: the later wins).
	added, removed map[string]bool
	edited         map[string]bool
	failed         bool
	nsteps         int
}

// runHistory runs one history of steps random steps and checks, after a
// final round of exchanges, that every device lists the same entries, that
// no acknowledged add is lost unless it was removed after, and that no
// removal is undone. It reports whether the history passed.
func runHistory(t *testing.T, seed uint64, steps int) bool {
	t.Helper()
	h := &history{
		t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x5eed)),
		now:   time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		added: map[string]bool{}, removed: map[string]bool{}, edited: map[string]bool{}, nsteps: steps,
	}
	root := t.TempDir()
	cloned := h.rng.IntN(4) == 0 // two of the devices are clones of one system
	for i := range 2 + h.rng.IntN(3) {
		d := &histDevice{
			name:    fmt.Sprintf("d%d", i),
			path:    filepath.Join(root, fmt.Sprintf("sync%d", i), "memory.json"),
			state:   filepath.Join(root, fmt.Sprintf("state%d", i)),
			machine: fmt.Sprintf("machine%d", i),
			offset:  time.Duration(h.rng.IntN(6*60+1)-3*60) * time.Minute,
		}
		if cloned && i == 1 {
			d.machine = "machine0"
		}
		h.devs = append(h.devs, d)
	}
	defer h.closeAll()
	for step := range steps {
		h.now = h.now.Add(time.Second + time.Duration(h.rng.Int64N(int64(10*time.Minute))))
		h.step(step)
		if h.failed {
			return false
		}
	}
	h.finish()
	return !h.failed
}

func (h *history) logf(format string, args ...any) {
	h.steps = append(h.steps, fmt.Sprintf(format, args...))
}

// fail reports the history's seed, what went wrong and the steps that
// name the entry id (all of them if id is "").
func (h *history) fail(id, format string, args ...any) {
	h.t.Helper()
	var steps []string
	for _, s := range h.steps {
		if id == "" || strings.Contains(s, id) || !strings.HasPrefix(s, " ") && !strings.Contains(s, " adds ") && !strings.Contains(s, " removes ") && !strings.Contains(s, " typed by hand") {
			steps = append(steps, s)
		}
	}
	h.t.Errorf("history seed %d (rerun: go test ./memory/ -run 'TestSyncHistories$' -args -sync.seed %d -sync.steps %d): %s\nsteps:\n  %s",
		h.seed, h.seed, h.nsteps, fmt.Sprintf(format, args...), strings.Join(steps, "\n  "))
	h.failed = true
}

func (h *history) pick() *histDevice { return h.devs[h.rng.IntN(len(h.devs))] }

// two picks two different devices.
func (h *history) two() (*histDevice, *histDevice) {
	i := h.rng.IntN(len(h.devs))
	j := (i + 1 + h.rng.IntN(len(h.devs)-1)) % len(h.devs)
	return h.devs[i], h.devs[j]
}

func (h *history) open(d *histDevice) {
	if d.s != nil {
		return
	}
	clock := func() time.Time { return h.now.Add(d.offset) }
	s, err := Open(d.path, Options{StateDir: d.state, Now: clock, Machine: d.machine, JournalKeep: 30 * time.Minute})
	if err != nil {
		h.fail("", "open %s: %v", d.name, err)
		return
	}
	s.jr.minLines, s.jr.checkAt = 4, 4 // compact often
	d.s = s
}

func (h *history) exit(d *histDevice) {
	if d.s != nil {
		d.s.Close()
		d.s = nil
	}
}

func (h *history) closeAll() {
	for _, d := range h.devs {
		h.exit(d)
	}
}

func (h *history) reload(d *histDevice) {
	if d.s != nil {
		_ = d.s.Reload() // a file that does not parse, or a full disk: Err says so
	}
}

var historyWords = strings.Fields("apples river Lisbon violin tea Kotlin garden cycling chess jazz " +
	"Monday sailing Rust tomatoes Berlin piano yoga coffee hiking Python pottery Tuesday " +
	"lemons opera rowing Madrid ceramics Haskell painting cocoa Friday skiing")

func (h *history) text(step int) string {
	w := func() string { return historyWords[h.rng.IntN(len(historyWords))] }
	return fmt.Sprintf("On %s the user talked about %s, %s and %s (note %d-%d).", w(), w(), w(), w(), h.seed, step)
}

func (h *history) step(step int) {
	switch r := h.rng.IntN(100); {
	case r < 30:
		d := h.pick()
		h.open(d)
		if d.s == nil {
			return
		}
		e, isNew, err := d.s.Add(Entry{Text: h.text(step)})
		h.logf("%d: %s adds %s (new %v, err %v)", step, d.name, e.ID, isNew, err)
		if err == nil && isNew {
			h.added[e.ID] = true
		}
	case r < 38:
		d := h.pick()
		h.open(d)
		if d.s == nil {
			return
		}
		live := d.s.List()
		if len(live) == 0 {
			return
		}
		id := live[h.rng.IntN(len(live))].ID
		err := d.s.Remove(id)
		h.logf("%d: %s removes %s (err %v)", step, d.name, id, err)
		if err == nil {
			h.removed[id] = true
			delete(h.added, id)
		}
	case r < 42:
		h.typeByHand(step)
	case r < 46:
		d := h.pick()
		h.open(d)
		if d.s == nil {
			return
		}
		live := d.s.List()
		if len(live) == 0 {
			return
		}
		id := live[h.rng.IntN(len(live))].ID
		_, err := d.s.Update(id, Change{Text: ptr(h.text(step) + " Edited.")})
		h.logf("%d: %s edits %s (err %v)", step, d.name, id, err)
		if err == nil {
			h.edited[id] = true // an edit concurrent with a removal may win
		}
	case r < 62:
		from, to := h.two()
		h.deliver(step, from, to, "memory.json")
	case r < 67:
		from, to := h.two()
		h.deliver(step, from, to, fmt.Sprintf("memory.sync-conflict-20260301-%06d-ABCDEFG.json", step))
	case r < 72:
		to := h.pick()
		from := h.pick()
		if len(from.past) == 0 {
			return
		}
		old := from.past[h.rng.IntN(len(from.past))]
		h.logf("%d: an older copy of %s's file replaces %s's", step, from.name, to.name)
		os.MkdirAll(filepath.Dir(to.path), 0o700)
		h.replaceFile(to, old)
		h.reload(to)
		h.prune()
	case r < 75:
		d := h.pick()
		h.logf("%d: %s's memory.json is deleted", step, d.name)
		os.Remove(d.path)
		h.reload(d)
		h.prune()
	case r < 85:
		d := h.pick()
		h.logf("%d: %s's process exits", step, d.name)
		h.exit(d)
	case r < 88:
		d := h.pick()
		h.exit(d)
		h.logf("%d: %s's journal is deleted", step, d.name)
		os.RemoveAll(filepath.Join(d.state, "journal"))
		h.prune()
	case r < 91:
		d := h.pick()
		h.exit(d)
		h.cutJournal(step, d)
		h.prune()
	case r < 93:
		from, to := h.two()
		h.exit(to)
		h.logf("%d: %s's state folder is copied over %s's", step, from.name, to.name)
		os.RemoveAll(to.state)
		copyTree(h.t, from.state, to.state)
		// As in a home folder copied whole: the journal is that of the
		// store at the same place.
		os.Rename(journalPath(to.state, from.path), journalPath(to.state, to.path))
		h.prune()
	default:
		d := h.pick()
		h.reload(d)
	}
}

// deliver copies from's file to to's folder under name (memory.json: a
// sync tool's replace; another name: its conflict copy) and reloads to.
func (h *history) deliver(step int, from, to *histDevice, name string) {
	data, err := os.ReadFile(from.path)
	if err != nil {
		return
	}
	from.past = append(from.past, data)
	h.logf("%d: %s's file arrives at %s as %s", step, from.name, to.name, name)
	os.MkdirAll(filepath.Dir(to.path), 0o700)
	if name == "memory.json" {
		h.replaceFile(to, data)
	} else if err := os.WriteFile(filepath.Join(filepath.Dir(to.path), name), data, 0o600); err != nil {
		h.t.Fatal(err)
	}
	h.reload(to)
	h.prune()
}

func (h *history) replaceFile(d *histDevice, data []byte) {
	tmp := filepath.Join(filepath.Dir(d.path), ".syncing.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, d.path); err != nil {
		h.t.Fatal(err)
	}
}

// typeByHand adds an entry to a device's file as a person does in an
// editor, and has the device read it: then it is acknowledged.
func (h *history) typeByHand(step int) {
	d := h.pick()
	doc := map[string]any{"version": 2}
	if data, err := os.ReadFile(d.path); err == nil && json.Unmarshal(data, &doc) != nil {
		return
	}
	entries, _ := doc["entries"].([]any)
	text := h.text(step) + " Typed by hand."
	doc["entries"] = append(entries, map[string]any{"text": text})
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(d.path), 0o700)
	if err := os.WriteFile(d.path, data, 0o600); err != nil {
		h.t.Fatal(err)
	}
	h.open(d)
	h.reload(d)
	if d.s == nil {
		return
	}
	for _, e := range d.s.List() {
		if e.Text == text {
			h.logf("%d: %s gets %s typed by hand", step, d.name, e.ID)
			h.added[e.ID] = true
			return
		}
	}
	h.logf("%d: %s: a typed entry was not read", step, d.name)
}

// cutJournal cuts a device's journal at a random byte.
func (h *history) cutJournal(step int, d *histDevice) {
	paths, _ := filepath.Glob(filepath.Join(d.state, "journal", "*.jsonl"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		n := h.rng.IntN(len(data))
		h.logf("%d: %s's journal is cut at %d of %d bytes", step, d.name, n, len(data))
		os.WriteFile(p, data[:n], 0o600)
	}
}

// prune drops from what the history must show the adds and removals of
// which no copy is left anywhere (every store, file, conflict copy and
// journal): the history destroyed them itself.
func (h *history) prune() {
	live, dead := map[string]bool{}, map[string]bool{}
	note := func(e Entry) {
		if e.Deleted.IsZero() {
			live[e.ID] = true
		} else {
			dead[e.ID] = true
		}
	}
	for _, d := range h.devs {
		if d.s != nil {
			for _, e := range d.s.recs {
				note(e)
			}
		}
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(d.path), "*.json"))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				if fc, err := parseDoc(data, time.Time{}); err == nil {
					for _, e := range fc.entries {
						note(e)
					}
				}
			}
		}
		if data, err := os.ReadFile(journalPath(d.state, d.path)); err == nil {
			for _, line := range bytes.Split(data, []byte("\n")) {
				var r journalRecord
				if json.Unmarshal(line, &r) == nil && r.ID != "" {
					note(r.Entry)
				}
			}
		}
	}
	for id := range h.added {
		if !live[id] {
			h.logf("   (the add of %s is gone from every copy)", id)
			delete(h.added, id)
		}
	}
	for id := range h.removed {
		if !dead[id] {
			h.logf("   (the removal of %s is gone from every copy)", id)
			delete(h.removed, id)
		}
	}
}

// finish opens every device, exchanges the files in three rounds, and
// checks what the history must show.
func (h *history) finish() {
	for _, d := range h.devs {
		h.open(d)
	}
	for round := range 3 {
		for _, from := range h.devs {
			for _, to := range h.devs {
				if from != to {
					h.deliver(-1-round, from, to, "memory.json")
				}
			}
		}
	}
	if h.failed {
		return
	}
	lists := make([][]string, len(h.devs))
	for i, d := range h.devs {
		if err := d.s.Err(); err != nil {
			h.fail("", "%s: %v", d.name, err)
			return
		}
		for _, e := range d.s.List() {
			lists[i] = append(lists[i], e.ID)
		}
		slices.Sort(lists[i])
	}
	for i := range lists[1:] {
		if !slices.Equal(lists[0], lists[i+1]) {
			h.fail("", "%s and %s do not converge:\n%v\n%v", h.devs[0].name, h.devs[i+1].name, lists[0], lists[i+1])
			return
		}
	}
	for id := range h.added {
		if !slices.Contains(lists[0], id) {
			h.fail(id, "the add of %s is lost", id)
			return
		}
	}
	for id := range h.removed {
		if slices.Contains(lists[0], id) && !h.edited[id] {
			h.fail(id, "the removal of %s is undone", id)
			return
		}
	}
}

// copyTree copies the files of the tree src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}
