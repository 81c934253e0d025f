package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"engram/agent"
)

// ownHome points HOME and the XDG directories at a fresh temporary folder,
// so that nothing can reach the real user's files.
func ownHome(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(v, filepath.Join(home, strings.ToLower(strings.TrimPrefix(v, "XDG_"))))
	}
}

func TestReadInstructionsOfAMissingFileIsEmpty(t *testing.T) {
	ownHome(t)
	h := newHarness(t, nil, nil)
	for _, path := range []string{h.a.Instructions("").Global.Path, h.a.Instructions(t.TempDir()).Project.Path} {
		text, err := h.a.ReadInstructions(path)
		if text != "" || err != nil {
			t.Errorf("ReadInstructions(%s) = %q, %v; want \"\", nil", path, text, err)
		}
	}
}

func TestReadInstructionsReadsTheWholeFile(t *testing.T) {
	ownHome(t)
	h := newHarness(t, nil, nil)
	path := h.a.Instructions("").Global.Path
	long := strings.Repeat("a rule of the house\n", agent.MaxInstructionsSize/10)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(long), 0o600); err != nil {
		t.Fatal(err)
	}
	if text, err := h.a.ReadInstructions(path); err != nil || text != long {
		t.Errorf("ReadInstructions = %d bytes, %v; want the file's %d", len(text), err, len(long))
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := h.a.ReadInstructions(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("reading a folder named AGENTS.md: err = %v, want one naming the path", err)
	}
}

func TestSaveInstructionsIsUsedByTheNextTurn(t *testing.T) {
	ownHome(t)
	h := newHarness(t, nil, nil)
	proj := t.TempDir()
	id := h.newChat()
	if err := h.a.SetProject(id, proj); err != nil {
		t.Fatal(err)
	}
	info := h.a.Instructions(proj)
	h.turn(id, "first") // both files are missing and loaded as such
	if err := h.a.SaveInstructions(info.Global.Path, "GLOBAL-RULE: answer briefly."); err != nil {
		t.Fatalf("SaveInstructions(global): %v", err)
	}
	if err := h.a.SaveInstructions(info.Project.Path, "PROJECT-RULE: table tests."); err != nil {
		t.Fatalf("SaveInstructions(project): %v", err)
	}
	// At once, not after the file watcher's debounce: the save reloaded them.
	after := h.a.Instructions(proj)
	if !after.Global.Found || after.Global.Size != int64(len("GLOBAL-RULE: answer briefly.")) || !after.Project.Found {
		t.Errorf("Instructions right after saving = %+v", after)
	}
	for _, path := range []string{info.Global.Path, info.Project.Path} {
		ev := h.next(func(e agent.Event) bool { _, ok := e.(agent.InstructionsChanged); return ok })
		if ic := ev.(agent.InstructionsChanged); ic.Path != path || !ic.Found {
			t.Errorf("InstructionsChanged = %+v, want %s found", ic, path)
		}
	}
	log := h.turn(id, "second")
	sys := h.srv.Requests()[1].System()
	if !strings.Contains(sys, "GLOBAL-RULE") || !strings.Contains(sys, "PROJECT-RULE") {
		t.Errorf("the saved AGENTS.md files are not in the next prompt:\n%s", sys)
	}
	if ev := of[agent.InstructionsChanged](log.events); len(ev) != 0 {
		t.Errorf("the turn reports the saved files again: %+v", ev)
	}
	for _, path := range []string{info.Global.Path, info.Project.Path} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want a private file", path, err, fi.Mode())
		}
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
		for _, f := range files {
			if f != path && strings.Contains(filepath.Base(f), "AGENTS") {
				t.Errorf("a temporary file is left beside %s: %s", path, f)
			}
		}
	}
}

func TestSaveInstructionsWritesOnlyInstructionFiles(t *testing.T) {
	ownHome(t)
	h := newHarness(t, nil, nil)
	elsewhere := filepath.Join(t.TempDir(), "AGENTS.md")
	if err := h.a.SaveInstructions(elsewhere, "text"); err == nil {
		t.Error("SaveInstructions wrote a file of no pinned folder")
	}
	if _, err := os.Stat(elsewhere); !os.IsNotExist(err) {
		t.Errorf("the file exists: %v", err)
	}
	if _, err := h.a.ReadInstructions(""); err == nil {
		t.Error("ReadInstructions(\"\") gives no error")
	}
}
