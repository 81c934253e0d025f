package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/agent"
	"engram/agent/agenttest"
	"engram/memory"
)

// pickup bounds the wait for a file change to reach the agent; changes
// normally arrive within the watcher's debounce time (150 ms).
const pickup = 3 * time.Second

// eventually polls cond until it holds or pickup has passed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(pickup)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, pickup)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// collect gathers the agent's events until one matches and returns them
// all, the matching one last.
func (h *harness) collect(what string, match func(agent.Event) bool) []agent.Event {
	h.t.Helper()
	var out []agent.Event
	timeout := time.After(pickup)
	for {
		select {
		case e, ok := <-h.a.Events():
			if !ok {
				h.t.Fatalf("%s: event channel closed", what)
			}
			out = append(out, e)
			if match(e) {
				return out
			}
		case <-timeout:
			h.t.Fatalf("%s: no event within %v; got %#v", what, pickup, out)
		}
	}
}

// external matches a MemoryChanged of an outside change to a store.
func external(scope agent.Scope) func(agent.Event) bool {
	return func(e agent.Event) bool {
		m, ok := e.(agent.MemoryChanged)
		return ok && m.External && m.Scope == scope
	}
}

// editFile rewrites memory.json the way a person or a script would:
// the entries as read from the file, changed by edit, saved by write.
func editFile(t *testing.T, path string, write func(path string, data []byte), edit func([]map[string]any) []map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write(path, editData(t, data, edit))
}

// editData changes the entries of a memory.json.
func editData(t *testing.T, data []byte, edit func([]map[string]any) []map[string]any) []byte {
	t.Helper()
	var doc struct {
		Version int              `json:"version"`
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("parse memory.json: %v", err)
	}
	doc.Entries = edit(doc.Entries)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeInPlace(t *testing.T) func(string, []byte) {
	return func(path string, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// renameSave writes a temporary file and renames it over path, as many
// editors save.
func renameSave(t *testing.T) func(string, []byte) {
	return func(path string, data []byte) {
		tmp := filepath.Join(filepath.Dir(path), ".#"+filepath.Base(path)+".swp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
}

// handEntry is a new entry as a person would add it.
func handEntry(id, text string) map[string]any {
	return map[string]any{"id": id, "kind": "fact", "text": text, "source": "user",
		"created": "2026-01-02T03:04:05Z", "updated": "2026-01-02T03:04:05Z"}
}

func liveTexts(st *memory.Store) []string {
	var out []string
	for _, e := range st.List() {
		out = append(out, e.Text)
	}
	slices.Sort(out)
	return out
}

func has(st *memory.Store, text string) bool { return slices.Contains(liveTexts(st), text) }

func TestLiveMemoryEditsArePickedUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		write func(t *testing.T) func(string, []byte)
	}{
		{"edit in place", writeInPlace},
		{"rename over", renameSave},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			st := h.store(agent.ScopeGlobal, "")
			old := mustAddMemory(t, st, "The user's cat is called Miso.")
			h.collect("own write", func(e agent.Event) bool { _, ok := e.(agent.MemoryChanged); return ok })
			editFile(t, st.Path(), tt.write(t), func(es []map[string]any) []map[string]any {
				for _, e := range es {
					if e["id"] == old.ID {
						e["text"] = "The user's cat is called Tofu."
					}
				}
				return append(es, handEntry("hand0001", "The user lives in Lisbon."))
			})
			eventually(t, "hand edit", func() bool {
				return has(st, "The user lives in Lisbon.") && has(st, "The user's cat is called Tofu.")
			})
			if has(st, "The user's cat is called Miso.") {
				t.Errorf("the edited text is still live: %q", liveTexts(st))
			}
			ev := h.collect("MemoryChanged", external(agent.ScopeGlobal))
			if m := ev[len(ev)-1].(agent.MemoryChanged); m.Err != nil {
				t.Errorf("MemoryChanged.Err = %v", m.Err)
			}
			if n := len(of[agent.MemoryChanged](ev)); n != 1 {
				t.Errorf("%d MemoryChanged events for one outside edit, want 1: %#v", n, ev)
			}
		})
	}
}

func mustAddMemory(t *testing.T, st *memory.Store, text string) memory.Entry {
	t.Helper()
	e, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: text, Source: memory.SourceUser})
	if err != nil {
		t.Fatalf("Add(%q): %v", text, err)
	}
	return e
}

func TestLiveMemoryDeletedAndRecreated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	mustAddMemory(t, st, "The user prefers tea.")
	data, err := os.ReadFile(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(st.Path()); err != nil {
		t.Fatal(err)
	}
	// A sync tool puts the file back with one more entry.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["entries"] = append(doc["entries"].([]any), handEntry("sync0001", "The user works nights."))
	out, _ := json.Marshal(doc)
	if err := os.WriteFile(st.Path(), out, 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "recreated file", func() bool { return has(st, "The user works nights.") })
	if !has(st, "The user prefers tea.") {
		t.Errorf("lost an entry: %q", liveTexts(st))
	}
	// And after a plain delete, the store writes its memories back.
	if err := os.Remove(st.Path()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "file written back", func() bool {
		b, err := os.ReadFile(st.Path())
		return err == nil && strings.Contains(string(b), "The user works nights.")
	})
}

func TestLiveOwnWriteIsNotEchoed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	mustAddMemory(t, st, "The user likes Go.")
	// The AGENTS.md change comes after the store's write, in the same
	// directory: its event is handled after any echo of the write.
	if err := os.WriteFile(h.paths.GlobalInstructions(), []byte("Be brief."), 0o600); err != nil {
		t.Fatal(err)
	}
	evs := h.collect("InstructionsChanged", func(e agent.Event) bool { _, ok := e.(agent.InstructionsChanged); return ok })
	own := 0
	for _, e := range evs {
		if m, ok := e.(agent.MemoryChanged); ok {
			if m.External {
				t.Errorf("the store's own write was reported as an outside change: %+v", m)
			}
			own++
		}
	}
	if own == 0 {
		t.Errorf("no MemoryChanged for the store's own write; events %#v", evs)
	}
	// A real outside change right after is reported.
	editFile(t, st.Path(), writeInPlace(t), func(es []map[string]any) []map[string]any {
		return append(es, handEntry("hand0002", "The user likes Rust."))
	})
	h.collect("outside change", external(agent.ScopeGlobal))
}

func TestLiveBrokenEditKeepsMemories(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	mustAddMemory(t, st, "The user's editor is Helix.")
	mustAddMemory(t, st, "The user deploys on Fridays.")
	good, err := os.ReadFile(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := append(liveTexts(st), "Distilled while broken.")
	slices.Sort(want)

	broken := strings.Replace(string(good), `"entries": [`, `"entries": [,`, 1)
	for i := range 2 { // every broken save is reported
		text := broken + strings.Repeat(" ", i)
		if err := os.WriteFile(st.Path(), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		evs := h.collect("broken edit", external(agent.ScopeGlobal))
		m := evs[len(evs)-1].(agent.MemoryChanged)
		var ue *memory.UnparsableError
		if !errors.As(m.Err, &ue) || ue.Path != st.Path() {
			t.Fatalf("MemoryChanged.Err = %v, want a *memory.UnparsableError", m.Err)
		}
		// The app cannot save over the person's file meanwhile: what it
		// saves goes to this device's journal only.
		if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: "Distilled while broken.",
			Source: memory.SourceAuto}); err != nil || !errors.Is(st.Err(), memory.ErrUnparsable) {
			t.Errorf("Add while the file is broken = %v, store error %v; want it journaled, and ErrUnparsable", err, st.Err())
		}
		if got := liveTexts(st); !slices.Equal(got, want) {
			t.Errorf("memories after a broken edit: %q, want %q", got, want)
		}
		if b, _ := os.ReadFile(st.Path()); string(b) != text {
			t.Errorf("the person's broken file was changed:\n%s", b)
		}
	}
	if aside, _ := filepath.Glob(st.Path() + ".*"); slices.ContainsFunc(aside, func(p string) bool {
		return !strings.HasSuffix(p, ".lock")
	}) {
		t.Errorf("files set aside: %v", aside)
	}

	renameSave(t)(st.Path(), editData(t, good, func(es []map[string]any) []map[string]any {
		return append(es, handEntry("hand0003", "The user fixed the file."))
	}))
	evs := h.collect("fixed edit", external(agent.ScopeGlobal))
	if m := evs[len(evs)-1].(agent.MemoryChanged); m.Err != nil {
		t.Errorf("after the fix: MemoryChanged.Err = %v", m.Err)
	}
	fixed := append(slices.Clone(want), "The user fixed the file.")
	slices.Sort(fixed)
	if got := liveTexts(st); !slices.Equal(got, fixed) {
		t.Errorf("after the fix: %q, want %q", got, fixed)
	}
}

// TestLiveConcurrentStoresLoseNothing is a stress test, not parallel, so that it does not slow
// the timed tests beside it.
func TestLiveConcurrentStoresLoseNothing(t *testing.T) {
	stress(t)
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	other, err := memory.Open(st.Path(), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	const n = 40
	var wg sync.WaitGroup
	for _, s := range []struct {
		st     *memory.Store
		prefix string
	}{{st, "app"}, {other, "other copy"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				text := fmt.Sprintf("Memory %d written by the %s, distinct %c%c.", i, s.prefix, 'a'+i%26, 'a'+i/26)
				if _, _, err := s.st.Add(memory.Entry{Kind: memory.KindFact, Text: text, Source: memory.SourceUser}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	eventually(t, "both writers' entries in the app's store", func() bool { return st.Len() == 2*n })
	if got := other.Len(); got != 2*n {
		// The other copy has no watcher: it sees the file on its next read.
		if err := other.Reload(); err != nil {
			t.Fatal(err)
		}
		if got = other.Len(); got != 2*n {
			t.Errorf("the other copy has %d entries, want %d", got, 2*n)
		}
	}
}

func TestLiveInstructionsReachTheNextPrompt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	chat := h.newChat()
	path := h.paths.GlobalInstructions()
	isInstr := func(e agent.Event) bool {
		ic, ok := e.(agent.InstructionsChanged)
		return ok && ic.Path == path
	}

	if err := os.WriteFile(path, []byte("Always answer in French."), 0o600); err != nil {
		t.Fatal(err)
	}
	ev := h.collect("AGENTS.md created", isInstr)
	if ic := ev[len(ev)-1].(agent.InstructionsChanged); !ic.Found || ic.Truncated || ic.Err != nil {
		t.Errorf("InstructionsChanged = %+v", ic)
	}
	h.turn(chat, "Hello")
	if sys := lastRequest(t, h.srv).System(); !strings.Contains(sys, "Always answer in French.") {
		t.Errorf("system prompt lacks AGENTS.md:\n%s", sys)
	}

	// An editor's rename-save, picked up before the next turn.
	renameSave(t)(path, []byte("Always answer in German."))
	h.collect("AGENTS.md saved", isInstr)
	h.turn(chat, "Hello again")
	sys := lastRequest(t, h.srv).System()
	if !strings.Contains(sys, "Always answer in German.") || strings.Contains(sys, "French") {
		t.Errorf("system prompt after the edit:\n%s", sys)
	}

	// Too long: cut, with a warning in the event and in the prompt.
	big := strings.Repeat("Use tabs, not spaces.\n", 70<<10/22)
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	ev = h.collect("AGENTS.md grown", isInstr)
	if ic := ev[len(ev)-1].(agent.InstructionsChanged); !ic.Truncated {
		t.Errorf("InstructionsChanged = %+v, want Truncated", ic)
	}
	h.turn(chat, "Third")
	sys = lastRequest(t, h.srv).System()
	if len(sys) > agent.MaxInstructionsSize+8<<10 || !strings.Contains(sys, "only its first 64 KiB is used") {
		t.Errorf("system prompt of %d bytes; warning present: %v", len(sys), strings.Contains(sys, "64 KiB"))
	}

	// Deleted: gone from the next prompt.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	ev = h.collect("AGENTS.md deleted", isInstr)
	if ic := ev[len(ev)-1].(agent.InstructionsChanged); ic.Found {
		t.Errorf("InstructionsChanged = %+v, want not Found", ic)
	}
	h.turn(chat, "Fourth")
	if sys := lastRequest(t, h.srv).System(); strings.Contains(sys, "Use tabs") {
		t.Error("deleted AGENTS.md still in the prompt")
	}
}

func TestLiveInstructionsChangeReportedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	chat := h.newChat()
	path := h.paths.GlobalInstructions()
	if err := os.WriteFile(path, []byte("Answer in haiku."), 0o600); err != nil {
		t.Fatal(err)
	}
	// The turn's prompt may read the change before the watcher reports it.
	evs := h.turn(chat, "Hello").events
	if sys := lastRequest(t, h.srv).System(); !strings.Contains(sys, "Answer in haiku.") {
		t.Errorf("system prompt lacks AGENTS.md:\n%s", sys)
	}
	// The config.json change is handled after the watcher's AGENTS.md event.
	cfg := agent.DefaultConfig()
	cfg.RecallTopK = 4
	if err := agent.SaveConfig(h.paths.ConfigFile(), cfg); err != nil {
		t.Fatal(err)
	}
	evs = append(evs, h.collect("config changed", func(e agent.Event) bool {
		n, ok := e.(agent.Notice)
		return ok && strings.Contains(n.Text, "config.json")
	})...)
	if n := len(slices.DeleteFunc(of[agent.InstructionsChanged](evs), func(ic agent.InstructionsChanged) bool {
		return ic.Path != path
	})); n != 1 {
		t.Errorf("%d InstructionsChanged for one edit, want 1", n)
	}
}

func lastRequest(t *testing.T, srv *agenttest.Server) agenttest.Request {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the endpoint received no request")
	}
	return reqs[len(reqs)-1]
}

func TestLiveProjectFiles(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	proj := t.TempDir()
	chat := h.newChat()
	if err := h.a.SetProject(chat, proj); err != nil {
		t.Fatal(err)
	}
	st := h.store(agent.ScopeProject, proj) // opens the project: now followed
	mustAddMemory(t, st, "This project uses Go 1.26.")

	agentsPath := filepath.Join(proj, "AGENTS.md")
	if err := os.WriteFile(agentsPath, []byte("Run make test before committing."), 0o600); err != nil {
		t.Fatal(err)
	}
	h.collect("project AGENTS.md", func(e agent.Event) bool {
		ic, ok := e.(agent.InstructionsChanged)
		return ok && ic.Path == agentsPath && ic.Found
	})
	editFile(t, st.Path(), renameSave(t), func(es []map[string]any) []map[string]any {
		return append(es, handEntry("proj0001", "The project's CI runs on Forgejo."))
	})
	evs := h.collect("project memory", external(agent.ScopeProject))
	if m := evs[len(evs)-1].(agent.MemoryChanged); m.Dir != proj || m.Err != nil {
		t.Errorf("MemoryChanged = %+v, want Dir %s and no error", m, proj)
	}
	if !has(st, "The project's CI runs on Forgejo.") {
		t.Errorf("project store: %q", liveTexts(st))
	}
	h.turn(chat, "What now?")
	if sys := lastRequest(t, h.srv).System(); !strings.Contains(sys, "Run make test before committing.") {
		t.Errorf("system prompt lacks the project's AGENTS.md:\n%s", sys)
	}
}

// instructionsOf matches the InstructionsChanged of one AGENTS.md.
func instructionsOf(path string) func(agent.Event) bool {
	return func(e agent.Event) bool {
		ic, ok := e.(agent.InstructionsChanged)
		return ok && ic.Path == path
	}
}

func TestLivePinnedProjectsFollowedFromStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := agent.DefaultPaths(dir+"/config", dir+"/data", dir+"/state")
	proj := t.TempDir()
	first, err := agent.New(agent.Options{Config: agent.DefaultConfig(), Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	c, err := first.NewChat()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.SetProject(c.ID, proj); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	a, err := agent.New(agent.Options{Config: agent.DefaultConfig(), Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	h := &harness{t: t, a: a}
	path := filepath.Join(proj, "AGENTS.md")
	if err := os.WriteFile(path, []byte("Use make."), 0o600); err != nil {
		t.Fatal(err)
	}
	evs := h.collect("the pinned project's AGENTS.md", instructionsOf(path))
	if ic := evs[len(evs)-1].(agent.InstructionsChanged); !ic.Found || ic.Err != nil {
		t.Errorf("InstructionsChanged = %+v", ic)
	}
	// Following it read nothing of the project's memory.
	if _, err := os.Stat(filepath.Dir(paths.ProjectMemory(proj))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the project's memory dir was created: %v", err)
	}

	// A folder pinned later is followed from then on.
	other := t.TempDir()
	if err := a.SetProject(c.ID, other); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(other, "AGENTS.md")
	if err := os.WriteFile(path, []byte("Use just."), 0o600); err != nil {
		t.Fatal(err)
	}
	h.collect("a newly pinned project's AGENTS.md", instructionsOf(path))
}

func TestLiveConfigReload(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, nil)
	chat := h.newChat()
	start := h.a.Config()
	isNotice := func(e agent.Event) bool {
		n, ok := e.(agent.Notice)
		return ok && strings.Contains(n.Text, "config.json")
	}

	// The harness's endpoint and key came from outside the file (as the
	// environment's would): a file that does not name them keeps them.
	cfg := agent.DefaultConfig()
	cfg.Model, cfg.RecallTopK = "file-model", 2
	if err := agent.SaveConfig(h.paths.ConfigFile(), cfg); err != nil {
		t.Fatal(err)
	}
	h.collect("config changed", isNotice)
	got := h.a.Config()
	if got.Model != "file-model" || got.RecallTopK != 2 || got.BaseURL != start.BaseURL || got.APIKey != start.APIKey {
		t.Errorf("config after the edit: %+v", got)
	}
	h.turn(chat, "Hi")
	if m := lastRequest(t, h.srv).Model; m != "file-model" {
		t.Errorf("the next turn used model %q, want file-model", m)
	}

	if err := os.WriteFile(h.paths.ConfigFile(), []byte(`{"model": `), 0o600); err != nil {
		t.Fatal(err)
	}
	h.collect("broken config", isNotice)
	if got := h.a.Config(); got.Model != "file-model" {
		t.Errorf("a broken config.json changed the settings: %+v", got)
	}
}

// envAgent starts an agent the way the programs do: config.json holds file,
// the environment env, and the config is resolved from both.
func envAgent(t *testing.T, file agent.Config, env map[string]string) (*agent.Agent, agent.Paths) {
	t.Helper()
	dir := t.TempDir()
	paths := agent.DefaultPaths(dir+"/config", dir+"/data", dir+"/state")
	if err := agent.SaveConfig(paths.ConfigFile(), file); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := agent.LoadConfig(paths.ConfigFile(), getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{Config: cfg, Paths: paths, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a, paths
}

func TestLiveEnvironmentOverridesSurviveReload(t *testing.T) {
	t.Parallel()
	file := agent.DefaultConfig()
	file.BaseURL, file.Model = "http://file/v1", "file-model"
	a, paths := envAgent(t, file, map[string]string{agent.EnvModel: "env-model"})
	// Any edit of the file, even of the overridden field, leaves the
	// environment's value in use, as a restart would.
	for i, model := range []string{"file-model", "edited-model", "env-model", "file-model"} {
		file.RecallTopK, file.Model = 3+i, model
		if err := agent.SaveConfig(paths.ConfigFile(), file); err != nil {
			t.Fatal(err)
		}
		eventually(t, "config reload", func() bool { return a.Config().RecallTopK == file.RecallTopK })
		if got := a.Config(); got.Model != "env-model" || got.BaseURL != "http://file/v1" {
			t.Errorf("file model %q: in use %q at %q, want the environment's env-model at the file's endpoint",
				model, got.Model, got.BaseURL)
		}
	}
}

func TestSetConfigWritesOnlyWhatThePersonSet(t *testing.T) {
	t.Parallel()
	const envKey = "sk-env-secret-5678"
	file := agent.DefaultConfig()
	file.BaseURL, file.APIKey, file.Model = "http://file/v1", "sk-file-key-0000", "file-model"
	a, paths := envAgent(t, file, map[string]string{agent.EnvAPIKey: envKey, agent.EnvModel: "env-model"})
	saved := func() agent.Config {
		t.Helper()
		b, err := os.ReadFile(paths.ConfigFile())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), envKey) {
			t.Fatalf("the environment's key was written to config.json:\n%s", b)
		}
		c, err := agent.LoadConfig(paths.ConfigFile(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	isNotice := func(e agent.Event) bool {
		n, ok := e.(agent.Notice)
		return ok && strings.Contains(n.Text, "config.json")
	}

	// A change of another setting: the file keeps its key and model.
	c := a.Config()
	c.RecallTopK = 9
	if err := a.SetConfig(c); err != nil {
		t.Fatal(err)
	}
	if got := saved(); got.APIKey != file.APIKey || got.Model != "file-model" || got.RecallTopK != 9 {
		t.Errorf("saved %v", got)
	}
	if got := a.Config(); got.APIKey != envKey || got.Model != "env-model" || got.RecallTopK != 9 {
		t.Errorf("in use %v", got)
	}

	// The person picks a model: saved, and it wins over ENGRAM_MODEL from
	// now on, through the echo of the write and later edits of the file.
	c = a.Config()
	c.Model = "picked-model"
	if err := a.SetConfig(c); err != nil {
		t.Fatal(err)
	}
	if got := saved(); got.Model != "picked-model" || got.APIKey != file.APIKey {
		t.Errorf("saved %v", got)
	}
	// The AGENTS.md change is handled after the echo of the config write.
	if err := os.WriteFile(paths.GlobalInstructions(), []byte("Be brief."), 0o600); err != nil {
		t.Fatal(err)
	}
	ha := &harness{t: t, a: a}
	evs := ha.collect("InstructionsChanged", func(e agent.Event) bool { _, ok := e.(agent.InstructionsChanged); return ok })
	if slices.ContainsFunc(evs, isNotice) {
		t.Errorf("the echo of SetConfig's write changed the settings: %v", evs)
	}
	if got := a.Config(); got.Model != "picked-model" || got.APIKey != envKey {
		t.Errorf("in use after the echo %v", got)
	}
	edited := saved()
	edited.BaseURL, edited.RecallTopK = "http://edited/v1", 4
	if err := agent.SaveConfig(paths.ConfigFile(), edited); err != nil {
		t.Fatal(err)
	}
	ha.collect("config changed", isNotice)
	if got := a.Config(); got.Model != "picked-model" || got.APIKey != envKey || got.BaseURL != "http://edited/v1" ||
		got.RecallTopK != 4 {
		t.Errorf("in use after the edit %v", got)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", a.Config(), a.Config(), a.Config(), a.Config()); strings.Contains(s, envKey) {
		t.Errorf("a formatted Config shows the key: %s", s)
	}

	// A config.json that does not parse is not overwritten.
	broken := []byte(`{"model": "half-typed`)
	if err := os.WriteFile(paths.ConfigFile(), broken, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.SetConfig(a.Config()); err == nil {
		t.Error("SetConfig over a broken config.json succeeded")
	}
	if b, _ := os.ReadFile(paths.ConfigFile()); string(b) != string(broken) {
		t.Errorf("the broken config.json was changed:\n%s", b)
	}
}

// TestLiveCloseLeavesNoGoroutines is not parallel: it counts the goroutines
// of the whole test process.
func TestLiveCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		srv := agenttest.NewServer()
		defer srv.Close()
		dir := t.TempDir()
		paths := agent.DefaultPaths(dir+"/config", dir+"/data", dir+"/state")
		cfg := agent.DefaultConfig()
		cfg.BaseURL, cfg.Model, cfg.Distill = srv.BaseURL(), "fake-model", false
		a, err := agent.New(agent.Options{Config: cfg, Paths: paths, HTTPClient: srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		proj := t.TempDir()
		if _, err := a.Memory(agent.ScopeProject, proj); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(paths.GlobalInstructions(), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		h := &harness{t: t, a: a}
		h.collect("InstructionsChanged", func(e agent.Event) bool { _, ok := e.(agent.InstructionsChanged); return ok })
		// A turn still streaming when the agent closes.
		hold := make(chan struct{})
		defer close(hold)
		srv.Push(agenttest.Reply{Pieces: []string{"Once", " upon a time"}, Hold: hold})
		c, err := a.NewChat()
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Send(context.Background(), c.ID, "Tell me a story"); err != nil {
			t.Fatal(err)
		}
		h.collect("the first delta", func(e agent.Event) bool { _, ok := e.(agent.Delta); return ok })
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		for range a.Events() { // closed by Close
		}
		srv.Client().CloseIdleConnections()
	}()
	eventually(t, "goroutines back to the count before", func() bool { return runtime.NumGoroutine() <= before })
}

// liveClock is a settable clock for the agent and its stores.
type liveClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *liveClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *liveClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLiveConcurrentEditOfOneEntry(t *testing.T) {
	t.Parallel()
	clock := &liveClock{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	h := newHarness(t, nil, func(o *agent.Options) { o.Now = clock.Now })
	st := h.store(agent.ScopeGlobal, "")
	x := mustAddMemory(t, st, "The user's editor is Vim.")
	other := mustAddMemory(t, st, "The user's shell is fish.")
	buffer, err := os.ReadFile(st.Path()) // a person opens the file in an editor
	if err != nil {
		t.Fatal(err)
	}

	clock.Advance(time.Minute)
	neovim := "The user's editor is Neovim."
	if _, err := st.Update(x.ID, memory.Change{Text: &neovim}); err != nil { // the app edits X
		t.Fatal(err)
	}
	// The person saves their buffer: an edit of X made before the app's,
	// and an edit of another entry that nobody else touched.
	renameSave(t)(st.Path(), editData(t, buffer, func(es []map[string]any) []map[string]any {
		for _, e := range es {
			switch e["id"] {
			case x.ID:
				e["text"] = "The user's editor is Emacs."
			case other.ID:
				e["text"] = "The user's shell is zsh."
			}
		}
		return es
	}))
	eventually(t, "the person's edit of the other entry", func() bool {
		e, _ := st.Get(other.ID)
		return e.Text == "The user's shell is zsh."
	})
	if e, _ := st.Get(x.ID); e.Text != neovim || !e.Live() {
		t.Errorf("X = %+v, want the app's newer %q", e, neovim)
	}
	var history []string
	for _, e := range st.All() {
		if e.SupersededBy == x.ID {
			history = append(history, e.Text)
		}
	}
	if !slices.Contains(history, "The user's editor is Emacs.") {
		t.Errorf("the person's older edit of X is not kept as history: %q", history)
	}
}

// buildEngramctl builds the CLI into a temporary directory.
func buildEngramctl(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build engramctl with")
	}
	bin := filepath.Join(t.TempDir(), "engramctl")
	cmd := exec.Command(goBin, "build", "-o", bin, "engram/cmd/engramctl")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build engramctl: %v\n%s", err, out)
	}
	return bin
}

// TestLiveAppAndEngramctlLoseNothing is a stress test, not parallel, so that it does not slow
// the timed tests beside it.
func TestLiveAppAndEngramctlLoseNothing(t *testing.T) {
	stress(t)
	bin := buildEngramctl(t)
	h := newHarness(t, nil, nil)
	st := h.store(agent.ScopeGlobal, "")
	ctl := func(text string) error {
		cmd := exec.Command(bin, "memory", "add", "--store", st.Path(), "--", text)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("engramctl memory add: %v: %s", err, out)
		}
		return nil
	}
	const n = 15
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range n {
			if err := ctl(fmt.Sprintf("Fact %d from the engramctl process, token %s.", i, memory.NewID())); err != nil {
				t.Error(err)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range n {
			text := fmt.Sprintf("Fact %d from the app, token %s.", i, memory.NewID())
			if _, _, err := st.Add(memory.Entry{Kind: memory.KindFact, Text: text, Source: memory.SourceUser}); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	// The last write is engramctl's alone: only the watcher brings it in.
	last := "The user ran engramctl while the app was open."
	if err := ctl(last); err != nil {
		t.Fatal(err)
	}
	eventually(t, "engramctl's last entry in the app", func() bool { return has(st, last) })
	if got := st.Len(); got != 2*n+1 {
		t.Errorf("the app's store has %d entries, want %d", got, 2*n+1)
	}
	data, err := os.ReadFile(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	entries, _, err := memory.ParseFile(data, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if live := slices.DeleteFunc(entries, func(e memory.Entry) bool { return !e.Live() }); len(live) != 2*n+1 {
		t.Errorf("the file has %d live entries, want %d", len(live), 2*n+1)
	}
	h.collect("MemoryChanged of engramctl's write", external(agent.ScopeGlobal))
}

func TestLiveSymlinkedMemoryFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := agent.DefaultPaths(dir+"/config", dir+"/data", dir+"/state")
	dotfiles := filepath.Join(dir, "dotfiles")
	if err := os.MkdirAll(dotfiles, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(paths.ConfigDir, 0o700); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dotfiles, "memory.json")
	if err := os.WriteFile(real, []byte(`{"version": 1, "entries": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, paths.GlobalMemory()); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{Config: agent.DefaultConfig(), Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	st, err := a.Memory(agent.ScopeGlobal, "")
	if err != nil {
		t.Fatal(err)
	}
	// The person edits the file in their dotfiles repo.
	renameSave(t)(real, editData(t, []byte(`{"version": 1, "entries": []}`), func(es []map[string]any) []map[string]any {
		return append(es, handEntry("dot00001", "The user keeps dotfiles in git."))
	}))
	eventually(t, "edit of the symlinked file", func() bool { return has(st, "The user keeps dotfiles in git.") })
}

// A conflict copy a sync tool writes beside memory.json while the app runs
// is merged, moved out of the folder, and reported with the count.
func TestLiveConflictCopyMerged(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	h := newHarness(t, nil, func(o *agent.Options) { o.Memory.StateDir = state })
	st := h.store(agent.ScopeGlobal, "")
	mustAddMemory(t, st, "The user's cat is called Miso.")
	h.collect("own write", func(e agent.Event) bool { _, ok := e.(agent.MemoryChanged); return ok })
	name := "memory.sync-conflict-20261201-101010-ABCDEFG.json"
	other := `{"version": 2, "entries": [{"id": "other00001", "kind": "fact", "text": "Written on the laptop.", "created": "2026-01-02T03:04:05Z"}]}`
	if err := os.WriteFile(filepath.Join(filepath.Dir(st.Path()), name), []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "conflict copy merged", func() bool { return has(st, "Written on the laptop.") })
	h.collect("merge notice", func(e agent.Event) bool {
		n, ok := e.(agent.Notice)
		return ok && strings.Contains(n.Text, "Merged 1 memories from 1 conflict copies")
	})
	if _, err := os.Stat(filepath.Join(state, "backups", name)); err != nil {
		t.Errorf("the copy is not in the backups: %v", err)
	}
	if !has(st, "The user's cat is called Miso.") {
		t.Errorf("the store's own memory is gone: %q", liveTexts(st))
	}
}
