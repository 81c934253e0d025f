package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"engram/agent/agenttest"
	"engram/memory"
)

// flowerpot is the memory whose copies the tests look for, and the word
// they grep for.
const (
	flowerpot     = "The spare house key is under the blue flowerpot."
	flowerpotWord = "flowerpot"
)

// keptEnv is a private home with copies of flowerpot in every kind of
// file Engram keeps, made by real engramctl processes.
type keptEnv struct {
	*chatEnv
	env   []string // the processes' environment
	path  string   // the global memory.json
	id    string   // flowerpot's ID
	older []byte   // memory.json as it was before the test's rm or forget
}

// newKeptEnv sets up: a legacy memory.json holding flowerpot (upgraded,
// with a legacy copy), a pin (a journal record), a conflict copy merged
// into the backups, a broken file repaired (kept in the backups), and a
// chat in which the model's memory_search result shows it.
func newKeptEnv(t *testing.T) *keptEnv {
	t.Helper()
	e := &keptEnv{chatEnv: newChatEnv(t)}
	e.vars["HOME"] = e.home
	e.vars["XDG_STATE_HOME"] = filepath.Join(e.home, "state")
	e.vars["XDG_CACHE_HOME"] = filepath.Join(e.home, "cache")
	for k, v := range e.vars {
		e.env = append(e.env, k+"="+v)
	}
	e.env = append(e.env, "ENGRAMCTL_AS_MAIN=1", "PATH="+os.Getenv("PATH"))
	e.path = filepath.Join(e.vars["XDG_CONFIG_HOME"], "engram", "memory.json")
	if err := os.MkdirAll(filepath.Dir(e.path), 0o700); err != nil {
		t.Fatal(err)
	}
	legacy := `{"entries": [{"kind": "fact", "text": "` + flowerpot + `", "source": "tool", "ts": "2026-11-01T10:00:00Z"},
		{"kind": "fact", "text": "The user swims on Tuesdays.", "ts": "2026-11-01T10:00:00Z"}]}`
	if err := os.WriteFile(e.path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	var listed []memory.Entry
	if err := json.Unmarshal([]byte(e.ctl(t, "memory", "list", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(listed, func(x memory.Entry) bool { return x.Text == flowerpot })
	if i < 0 {
		t.Fatalf("the legacy memory is not listed: %+v", listed)
	}
	e.id = listed[i].ID
	e.ctl(t, "memory", "pin", e.id)
	e.older = e.read(t)
	conflict := filepath.Join(filepath.Dir(e.path), "memory.sync-conflict-20261201-101010-ABCDEFG.json")
	if err := os.WriteFile(conflict, e.older, 0o600); err != nil {
		t.Fatal(err)
	}
	e.ctl(t, "memory", "list")
	if err := os.WriteFile(e.path, bytes.Replace(e.older, []byte(`"entries"`), []byte(`"entries" [[`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	e.ctl(t, "memory", "repair")

	// Scripted (Push takes the server's lock: the chat is another process).
	e.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "s", Name: "memory_search", Args: `{"query":"spare key"}`}}},
		agenttest.Reply{Text: "Where your memory says."},
		agenttest.Reply{Text: "[]"}, // distillation
	)
	e.ctl(t, "chat", "where is the spare key?")

	want := []string{
		"config/engram/memory.json",
		"config/engram/memory.json.legacy-",
		"data/engram/chats/",
		"state/engram/backups/memory.json.broken-",
		"state/engram/backups/memory.sync-conflict-20261201-101010-ABCDEFG.json",
		"state/engram/journal/",
	}
	if got := e.holders(t); !matchPrefixes(got, want) {
		t.Fatalf("before the test the text is in %q, want one of each of %q", got, want)
	}
	return e
}

// ctl runs engramctl as a process of its own, fails the test unless it
// exits 0 and returns its output.
func (e *keptEnv) ctl(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = e.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("engramctl %q: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

func (e *keptEnv) read(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(e.path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// putBackOlder puts back the copy of memory.json taken before the test's
// rm or forget, as a sync tool or a restored backup would, and has a new
// engramctl process read it.
func (e *keptEnv) putBackOlder(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(e.path, e.older, 0o600); err != nil {
		t.Fatal(err)
	}
	e.ctl(t, "memory", "list")
}

// holders lists the files under the home (relative, slash-separated) that
// hold flowerpotWord.
func (e *keptEnv) holders(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(e.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(flowerpotWord)) {
			rel, _ := filepath.Rel(e.home, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// matchPrefixes reports whether got has one name for each prefix of want,
// in order, and nothing else.
func matchPrefixes(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// TestMemoryRmLeavesTheTextInTheTrash: after `engramctl memory rm` the
// text is in this device's trash and, as the conversation it was shown
// in, in that chat; in no other file, also once the older memory.json
// comes back. `memory trash` lists it and `memory restore` brings it back.
func TestMemoryRmLeavesTheTextInTheTrash(t *testing.T) {
	e := newKeptEnv(t)
	e.ctl(t, "memory", "rm", e.id)
	want := []string{"data/engram/chats/", "state/engram/trash/"}
	if got := e.holders(t); !matchPrefixes(got, want) {
		t.Errorf("after rm the text is in %q, want %q", got, want)
	}
	e.putBackOlder(t)
	if got := e.holders(t); !matchPrefixes(got, want) {
		t.Errorf("after the older memory.json came back the text is in %q, want %q", got, want)
	}
	if list := e.ctl(t, "memory", "list"); strings.Contains(list, flowerpotWord) {
		t.Errorf("the removed memory is listed again:\n%s", list)
	}
	trash := e.ctl(t, "memory", "trash")
	if !strings.HasPrefix(trash, e.id+"\tfact\tremoved ") || !strings.HasSuffix(trash, "\t"+flowerpot+"\n") {
		t.Errorf("memory trash:\n%s", trash)
	}
	e.ctl(t, "memory", "restore", e.id)
	if list := e.ctl(t, "memory", "list"); !strings.Contains(list, e.id+"\tfact\tpinned\t"+flowerpot) {
		t.Errorf("after restore:\n%s", list)
	}
	if trash := e.ctl(t, "memory", "trash"); trash != "" {
		t.Errorf("the trash after restore:\n%s", trash)
	}
	e.ctl(t, "memory", "rm", e.id)
	if out := e.ctl(t, "memory", "trash", "empty"); out != "emptied the trash: 1 memories deleted for good\n" {
		t.Errorf("trash empty: %q", out)
	}
	if got := e.holders(t); !matchPrefixes(got, []string{"data/engram/chats/"}) {
		t.Errorf("after trash empty the text is in %q, want the chat only", got)
	}
}

// TestMemoryForgetLeavesTheTextNowhere: after `engramctl memory forget`
// no file under the home holds the text, also once the older memory.json
// comes back, and the memory stays forgotten.
func TestMemoryForgetLeavesTheTextNowhere(t *testing.T) {
	e := newKeptEnv(t)
	if out := e.ctl(t, "memory", "forget", e.id[:6]); out != e.id+"\n" {
		t.Errorf("forget printed %q", out)
	}
	if got := e.holders(t); len(got) != 0 {
		t.Errorf("after forget the text is in %q, want nowhere", got)
	}
	e.putBackOlder(t)
	if got := e.holders(t); len(got) != 0 {
		t.Errorf("after the older memory.json came back the text is in %q, want nowhere", got)
	}
	if list := e.ctl(t, "memory", "list"); list != "" && strings.Contains(list, e.id) {
		t.Errorf("the forgotten memory is listed again:\n%s", list)
	}
	cmd := exec.Command(os.Args[0], "memory", "restore", e.id)
	cmd.Env = e.env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "forgotten") {
		t.Errorf("restore of a forgotten memory: %v\n%s", err, out)
	}
}

// TestMemoryForgetSecrets: `engramctl memory forget --secrets` forgets
// what looks like a secret, removed ones included, and nothing else.
func TestMemoryForgetSecrets(t *testing.T) {
	c := newCLI(t)
	keep := strings.TrimSpace(c.ok("memory", "add", "My password manager is Bitwarden."))
	wifi := strings.TrimSpace(c.ok("memory", "add", "--force", "The wifi password is hunter2-orchid-77."))
	pin := strings.TrimSpace(c.ok("memory", "add", "--force", "The router PIN is 493817."))
	c.ok("memory", "rm", pin)
	out := c.ok("memory", "forget", "--secrets")
	if got := strings.Fields(out); len(got) != 2 || !slices.Contains(got, wifi) || !slices.Contains(got, pin) {
		t.Errorf("forget --secrets printed %q, want %s and %s", out, wifi, pin)
	}
	if list := c.ok("memory", "list"); !strings.HasPrefix(list, keep+"\t") || strings.Count(list, "\n") != 1 {
		t.Errorf("after the sweep:\n%s", list)
	}
	if code, _, errs := c.run("", "memory", "forget", "--secrets", wifi); code != exitUsage {
		t.Errorf("--secrets with an ID: exit %d\n%s", code, errs)
	}
	if code, _, _ := c.run("", "memory", "forget", "nosuchid00"); code != exitNotFound {
		t.Errorf("forget of an unknown ID: exit %d", code)
	}
}

// TestChatForgetLeavesTheTextNowhere: a forget the model makes through
// `engramctl chat` (memory_forget) leaves the text in no file, also once
// the older memory.json comes back.
func TestChatForgetLeavesTheTextNowhere(t *testing.T) {
	e := newKeptEnv(t)
	e.ctl(t, "memory", "unpin", e.id) // the model forgets only what it wrote and nobody pinned
	e.srv.Push(
		agenttest.Reply{ToolCalls: []agenttest.ToolCall{{ID: "f", Name: "memory_forget", Args: `{"id":"` + e.id + `"}`}}},
		agenttest.Reply{Text: "Done."},
		agenttest.Reply{Text: "[]"}, // distillation
	)
	chats, err := filepath.Glob(filepath.Join(e.vars["XDG_DATA_HOME"], "engram", "chats", "*.json"))
	if err != nil || len(chats) != 1 {
		t.Fatalf("chats %q, %v", chats, err)
	}
	id := strings.TrimSuffix(filepath.Base(chats[0]), ".json")
	if out := e.ctl(t, "chat", "--chat", id, "forget where my spare key is"); !strings.Contains(out, "Done.") {
		t.Fatalf("chat answered %q", out)
	}
	if got := e.holders(t); len(got) != 0 {
		t.Errorf("after the model's forget the text is in %q, want nowhere", got)
	}
	e.putBackOlder(t)
	if got := e.holders(t); len(got) != 0 {
		t.Errorf("after the older memory.json came back the text is in %q, want nowhere", got)
	}
	if list := e.ctl(t, "memory", "list"); strings.Contains(list, e.id) {
		t.Errorf("the forgotten memory is listed again:\n%s", list)
	}
}
