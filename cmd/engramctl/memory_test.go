package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"engram/memory"
)

// cli runs engramctl in process against a private XDG_CONFIG_HOME.
type cli struct {
	t    *testing.T
	home string
}

func newCLI(t *testing.T) *cli { return &cli{t: t, home: t.TempDir()} }

func (c *cli) getenv(k string) string {
	switch k {
	case "XDG_CONFIG_HOME":
		return c.home
	case "XDG_STATE_HOME":
		return filepath.Join(c.home, "state")
	}
	return ""
}

// run runs engramctl with stdin and returns the exit code and outputs.
func (c *cli) run(stdin string, args ...string) (int, string, string) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code := runIO(context.Background(), args, strings.NewReader(stdin), &out, &errb, c.getenv)
	return code, out.String(), errb.String()
}

// ok runs engramctl, fails the test unless it exits 0, and returns stdout.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	code, out, errs := c.run("", args...)
	if code != exitOK {
		c.t.Fatalf("engramctl %q: exit %d\n%s", args, code, errs)
	}
	return out
}

func (c *cli) globalPath() string { return filepath.Join(c.home, "engram", "memory.json") }

// listed parses plain list output into id → fields.
func listed(t *testing.T, out string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("list line %q has %d fields, want 4", line, len(f))
		}
		rows = append(rows, f)
	}
	return rows
}

func TestMemoryCLIWorkflow(t *testing.T) {
	c := newCLI(t)
	if out := c.ok("memory", "list"); out != "" {
		t.Errorf("empty list: %q", out)
	}
	if out := c.ok("memory", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("empty list --json: %q", out)
	}
	id1 := strings.TrimSpace(c.ok("memory", "add", "--kind", "pref", "Answer", "in", "British", "English."))
	id2 := strings.TrimSpace(c.ok("memory", "add", "--pin", "--", "--dashes\tand\ttabs"))
	code, out, errs := c.run("line one\nline two\n", "memory", "add", "-", "--kind", "lesson")
	if code != exitOK {
		t.Fatalf("add from stdin: %d %s", code, errs)
	}
	id3 := strings.TrimSpace(out)

	// A duplicate exits 0, prints the existing ID and says so on stderr.
	code, out, errs = c.run("", "memory", "add", "answer in british english")
	if code != exitOK || strings.TrimSpace(out) != id1 || !strings.Contains(errs, "already remembered as "+id1) {
		t.Errorf("duplicate add: %d %q %q", code, out, errs)
	}

	rows := listed(t, c.ok("memory", "list"))
	want := [][]string{
		{id1, "preference", "-", "Answer in British English."},
		{id2, "fact", "pinned", `--dashes\tand\ttabs`},
		{id3, "lesson", "-", `line one\nline two`},
	}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Fatalf("list:\n got %q\nwant %q", rows, want)
	}

	// IDs may be abbreviated.
	c.ok("memory", "edit", id3[:6], "--kind", "correction", "only", "one", "line")
	c.ok("memory", "unpin", id2)
	c.ok("memory", "pin", id1)
	c.ok("memory", "rm", id2)
	var listedJSON []memory.Entry
	if err := json.Unmarshal([]byte(c.ok("memory", "list", "--json")), &listedJSON); err != nil {
		t.Fatal(err)
	}
	if len(listedJSON) != 2 || listedJSON[0].ID != id1 || !listedJSON[0].Pinned ||
		listedJSON[1].Text != "only one line" || listedJSON[1].Kind != memory.KindCorrection {
		t.Errorf("list --json after edits: %+v", listedJSON)
	}
	all := listed(t, c.ok("memory", "list", "--all"))
	if len(all) != 4 || all[1][0] != id2 || all[1][2] != "deleted" || all[3][2] != "superseded" || all[3][3] != `line one\nline two` {
		t.Errorf("list --all (the edited text kept as history): %q", all)
	}
	c.ok("memory", "restore", id2)
	c.ok("memory", "edit", "--text", "--dashes and no tabs", id2)
	if rows := listed(t, c.ok("memory", "list")); len(rows) != 3 || rows[1][0] != id2 || rows[1][3] != "--dashes and no tabs" {
		t.Errorf("after restore and edit: %q", rows)
	}

	// The JSON of add says whether the entry is new.
	var added struct {
		Entry memory.Entry `json:"entry"`
		New   bool         `json:"new"`
	}
	json.Unmarshal([]byte(c.ok("memory", "add", "--json", "--source", "tool", "Deploys with make release")), &added)
	if !added.New || added.Entry.Source != memory.SourceTool || added.Entry.Text != "Deploys with make release" {
		t.Errorf("add --json: %+v", added)
	}

	// search runs recall over the store; whatever it returns is well formed
	// and only holds live entries of this store.
	out = c.ok("memory", "search", "--k", "2", "British", "English")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || !slices.Contains([]string{id1, id2, id3, added.Entry.ID}, f[0]) {
			t.Errorf("search line %q", line)
		}
	}
	if n := strings.Count(out, "\n"); n > 2 {
		t.Errorf("search --k 2 printed %d lines", n)
	}

	// The file is where XDG says, mode 0600.
	fi, err := os.Stat(c.globalPath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("global store: %v %v", fi, err)
	}
}

func TestMemoryCLIExitCodes(t *testing.T) {
	c := newCLI(t)
	id := strings.TrimSpace(c.ok("memory", "add", "a memory to act on"))
	cases := []struct {
		name  string
		stdin string
		args  []string
		code  int
		msg   string
	}{
		{"no command", "", nil, exitUsage, "usage: engramctl COMMAND"},
		{"unknown command", "", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"memory alone", "", []string{"memory"}, exitUsage, "usage: engramctl memory"},
		{"unknown subcommand", "", []string{"memory", "frobnicate"}, exitUsage, `unknown subcommand "frobnicate"`},
		{"unknown flag", "", []string{"memory", "list", "--colour"}, exitUsage, "flag provided but not defined"},
		{"list argument", "", []string{"memory", "list", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"store and project", "", []string{"memory", "list", "--store", "x.json", "--project", "."}, exitUsage, "exclude each other"},
		{"empty text", "", []string{"memory", "add", "   "}, exitError, "memory text is empty"},
		{"empty stdin", "", []string{"memory", "add"}, exitError, "memory text is empty"},
		{"too long", "", []string{"memory", "add", "--source", "auto", strings.Repeat("字", 401)}, exitError, "401 characters, at most 400"},
		{"control character", "", []string{"memory", "add", "bell\a"}, exitError, "control character"},
		{"bad kind", "", []string{"memory", "add", "--kind", "gossip", "some text"}, exitError, `unknown memory kind "gossip"`},
		{"edit without ID", "", []string{"memory", "edit"}, exitUsage, "missing ID"},
		{"edit without change", "", []string{"memory", "edit", id}, exitUsage, "nothing to change"},
		{"edit both texts", "", []string{"memory", "edit", id, "--text", "a", "b"}, exitUsage, "either as --text"},
		{"edit unknown", "", []string{"memory", "edit", "zzzz", "new"}, exitNotFound, "memory not found: zzzz"},
		{"rm unknown", "", []string{"memory", "rm", "zzzz"}, exitNotFound, "memory not found"},
		{"rm none", "", []string{"memory", "rm"}, exitUsage, "missing ID"},
		{"pin unknown", "", []string{"memory", "pin", "zzzz"}, exitNotFound, "not found"},
		{"search nothing", "", []string{"memory", "search"}, exitUsage, "missing query"},
		{"import garbage", "not json at all", []string{"memory", "import"}, exitError, "parse input"},
		{"import missing file", "", []string{"memory", "import", "/nonexistent/file.json"}, exitError, "read input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(c.globalPath())
			code, _, errs := c.run(tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.msg)
			}
			if after, _ := os.ReadFile(c.globalPath()); !bytes.Equal(before, after) {
				t.Error("a failed command changed the store")
			}
		})
	}
	// rm of several IDs does what it can and reports the worst.
	code, out, _ := c.run("", "memory", "rm", "zzzz", id)
	if code != exitNotFound || strings.TrimSpace(out) != id {
		t.Errorf("rm zzzz %s: exit %d, %q", id, code, out)
	}
	if code, out, _ := c.run("", "help"); code != exitOK || !strings.Contains(out, "memory") {
		t.Errorf("help: %d", code)
	}
}

func TestMemoryCLIProjectStore(t *testing.T) {
	c := newCLI(t)
	proj := filepath.Join(t.TempDir(), "My Project")
	os.Mkdir(proj, 0o755)
	c.ok("memory", "add", "--project", proj, "project-only memory")
	want := filepath.Join(c.home, "engram", "projects", memory.ProjectSlug(proj), "memory.json")
	if !strings.HasPrefix(memory.ProjectSlug(proj), "my-project-") {
		t.Errorf("slug %q", memory.ProjectSlug(proj))
	}
	data, err := os.ReadFile(want)
	if err != nil || !strings.Contains(string(data), "project-only memory") {
		t.Fatalf("project store %s: %v", want, err)
	}
	if _, err := os.Stat(c.globalPath()); !os.IsNotExist(err) {
		t.Error("the global store was written")
	}
	if rows := listed(t, c.ok("memory", "list", "--project", proj)); len(rows) != 1 {
		t.Errorf("project list: %q", rows)
	}
	if rows := listed(t, c.ok("memory", "list")); len(rows) != 0 {
		t.Errorf("global list: %q", rows)
	}
	explicit := filepath.Join(t.TempDir(), "elsewhere.json")
	c.ok("memory", "add", "--store", explicit, "explicit store memory")
	if data, _ := os.ReadFile(explicit); !strings.Contains(string(data), "explicit store memory") {
		t.Error("--store not used")
	}
}

func TestMemoryCLIImportExport(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	legacyArray := filepath.Join(dir, "old.json")
	os.WriteFile(legacyArray, []byte(`["Prefers tabs", "Lives in Lisbon"]`), 0o600)
	if out := c.ok("memory", "import", legacyArray); out != "imported 2, duplicates 0, skipped 0, invalid 0\n" {
		t.Errorf("import array: %q", out)
	}
	legacyEntries := `{"entries": [{"kind": "pref", "text": "Use metric units", "source": "auto", "ts": 1746093600},
		{"kind": "fact", "text": "prefers tabs!", "ts": "2025-01-01T00:00:00Z"}]}`
	code, out, errs := c.run(legacyEntries, "memory", "import", "--json")
	var sum importSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != exitOK || sum.Added != 1 || sum.Duplicates != 1 {
		t.Errorf("import legacy entries: %d %q %q", code, out, errs)
	}
	jsonl := `{"kind": "lesson", "text": "Run go vet before committing"}
"a bare string line"

{"text": "bad \u0007 bell"}
{"text": "deleted one", "deleted": "2025-01-01T00:00:00Z"}
`
	code, out, errs = c.run(jsonl, "memory", "import", "-")
	if code != exitError || out != "imported 2, duplicates 0, skipped 1, invalid 1\n" || !strings.Contains(errs, "entry 3") {
		t.Errorf("import JSONL: %d %q %q", code, out, errs)
	}
	rows := listed(t, c.ok("memory", "list"))
	var got []string
	for _, r := range rows {
		got = append(got, r[3])
	}
	wantTexts := []string{"Use metric units", "Prefers tabs", "Lives in Lisbon", "Run go vet before committing", "a bare string line"}
	if !sameSet(got, wantTexts) {
		t.Errorf("after imports: %q", got)
	}

	// Export, then import into a fresh project store: same memories.
	exported := filepath.Join(dir, "export.json")
	c.ok("memory", "export", exported)
	var doc struct {
		Version int            `json:"version"`
		Entries []memory.Entry `json:"entries"`
	}
	data, _ := os.ReadFile(exported)
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != 2 || len(doc.Entries) != 5 {
		t.Fatalf("export: %v %s", err, data)
	}
	proj := t.TempDir()
	if out := c.ok("memory", "import", "--project", proj, exported); out != "merged 5 memories by ID\n" {
		t.Errorf("import of an export: %q", out)
	}
	var back []memory.Entry
	json.Unmarshal([]byte(c.ok("memory", "list", "--project", proj, "--json")), &back)
	var backTexts []string
	for _, e := range back {
		backTexts = append(backTexts, e.Text)
	}
	if !sameSet(backTexts, wantTexts) {
		t.Errorf("round trip: %q", backTexts)
	}
	// IDs survive the round trip when they are free.
	if !sameSet(idsOf(back), idsOf(doc.Entries)) {
		t.Error("IDs changed through export and import")
	}
	// Importing the export again after a deletion and an edit changes
	// nothing: the older copy neither brings the deleted memory back nor
	// undoes the edit.
	c.ok("memory", "rm", "--project", proj, back[0].ID)
	c.ok("memory", "edit", "--project", proj, back[1].ID, "edited after the export")
	if out := c.ok("memory", "import", "--project", proj, exported); out != "merged 0 memories by ID\n" {
		t.Errorf("re-import: %q", out)
	}
	now := listed(t, c.ok("memory", "list", "--project", proj))
	var nowTexts []string
	for _, r := range now {
		nowTexts = append(nowTexts, r[3])
	}
	if want := append([]string{"edited after the export"}, backTexts[2:]...); !sameSet(nowTexts, want) {
		t.Errorf("after re-importing an older export: %q, want %q", nowTexts, want)
	}
	// JSON Lines export has one entry per line.
	lines := strings.Split(strings.TrimSpace(c.ok("memory", "export", "--jsonl")), "\n")
	if len(lines) != 5 {
		t.Errorf("export --jsonl: %d lines", len(lines))
	}
	for _, l := range lines {
		var e memory.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.ID == "" {
			t.Errorf("jsonl line %q: %v", l, err)
		}
	}
}

func idsOf(es []memory.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// A broken memory.json is left byte for byte by list and add, which say
// where it fails; add keeps its memory in the journal, list shows it, and
// repair writes a fixed file from what can be read, keeping the broken one.
func TestMemoryCLIBrokenFileLeftAndRepaired(t *testing.T) {
	c := newCLI(t)
	os.MkdirAll(filepath.Dir(c.globalPath()), 0o700)
	broken := "{\"version\": 2, \"entries\": [\n" +
		"  {\"id\": \"keepme0001\", \"text\": \"readable entry\"},\n" +
		"  {\"id\": \"cutoff0002\", \"text\": \"an unclosed\n" +
		"  {\"id\": \"keepme0003\", \"text\": \"another readable one\"}\n"
	os.WriteFile(c.globalPath(), []byte(broken), 0o600)
	same := func(step string) {
		t.Helper()
		if data, _ := os.ReadFile(c.globalPath()); string(data) != broken {
			t.Fatalf("%s changed the broken file:\n%s", step, data)
		}
		if names, _ := os.ReadDir(filepath.Dir(c.globalPath())); len(names) != 2 {
			t.Errorf("%s left files beside it: %v", step, names)
		}
	}
	code, out, errs := c.run("", "memory", "list")
	if code != exitOK || out != "" || !strings.Contains(errs, "warning: memory.json line 3, column ") {
		t.Errorf("list of a broken store: %d %q %q", code, out, errs)
	}
	same("list")
	code, out, errs = c.run("", "memory", "add", "added while the file is broken")
	if code != exitError || !strings.Contains(errs, "saved to the journal only") || !strings.Contains(errs, "memory.json line 3") {
		t.Errorf("add to a broken store: %d %q %q", code, out, errs)
	}
	same("add")
	if got := listed(t, c.ok("memory", "list")); len(got) != 1 || got[0][3] != "added while the file is broken" {
		t.Errorf("list after the add: %q", got)
	}
	out = c.ok("memory", "repair")
	if !strings.Contains(out, "read 2 memories from it, 3 in all") {
		t.Errorf("repair: %q", out)
	}
	backups, _ := filepath.Glob(filepath.Join(c.home, "state", "engram", "backups", "memory.json.broken-*"))
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if data, _ := os.ReadFile(backups[0]); string(data) != broken {
		t.Error("the backup differs from the broken file")
	}
	code, out, errs = c.run("", "memory", "list")
	texts := []string{}
	for _, f := range listed(t, out) {
		texts = append(texts, f[3])
	}
	if code != exitOK || errs != "" || !sameSet(texts, []string{"readable entry", "another readable one", "added while the file is broken"}) {
		t.Errorf("after repair: %d %q %q", code, texts, errs)
	}
}

// TestMemoryCLITwoProcesses builds engramctl and runs two loops of
// `engramctl memory add` against one file at once: every add survives.
func TestMemoryCLITwoProcesses(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build engramctl")
	}
	n := 500
	if testing.Short() {
		n = 50
	}
	bin := filepath.Join(t.TempDir(), "engramctl")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	store := filepath.Join(t.TempDir(), "memory.json")
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				cmd := exec.Command(bin, "memory", "add", "--store", store, fmt.Sprintf("writer %c adds note %d to the shared file", 'A'+w, i))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("writer %c add %d: %v\n%s", 'A'+w, i, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	s, err := memory.Open(store, memory.Options{MaxEntries: 10 * n})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Err() != nil || s.Len() != 2*n {
		t.Fatalf("the store holds %d entries (err %v), want exactly %d", s.Len(), s.Err(), 2*n)
	}
}

func TestXDGHome(t *testing.T) {
	env := map[string]string{"ABS": "/home/u/.cfg", "REL": "rel/cfg", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	for name, want := range map[string]string{"ABS": "/home/u/.cfg", "REL": "/default", "EMPTY": "/default", "UNSET": "/default"} {
		if got := xdgHome(getenv, name, "/default"); got != want {
			t.Errorf("xdgHome(%s) = %q, want %q", name, got, want)
		}
	}
}

// Two devices (two XDG trees): a conflict copy of the laptop's memory.json
// beside the desktop's is merged by the next command and moved to the
// backups, and importing the laptop's file again merges by ID without
// bringing back what the desktop deleted.
func TestMemoryCLITwoDevicesConflictCopyAndImport(t *testing.T) {
	laptop, desktop := newCLI(t), newCLI(t)
	shared := strings.TrimSpace(laptop.ok("memory", "add", "written on the laptop first"))
	data, err := os.ReadFile(laptop.globalPath())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(desktop.globalPath()), 0o700)
	os.WriteFile(desktop.globalPath(), data, 0o600) // the sync tool's first copy
	desktop.ok("memory", "add", "written on the desktop")
	laptop.ok("memory", "add", "written on the laptop offline")
	desktop.ok("memory", "rm", shared)

	copyName := "memory.sync-conflict-20261201-101010-LAPTOP1.json"
	data, _ = os.ReadFile(laptop.globalPath())
	os.WriteFile(filepath.Join(filepath.Dir(desktop.globalPath()), copyName), data, 0o600)
	code, out, errs := desktop.run("", "memory", "list")
	if code != exitOK || !strings.Contains(errs, "merged 1 memories from 1 conflict copies") {
		t.Errorf("list with a conflict copy: %d %q", code, errs)
	}
	var texts []string
	for _, f := range listed(t, out) {
		texts = append(texts, f[3])
	}
	if !sameSet(texts, []string{"written on the desktop", "written on the laptop offline"}) {
		t.Errorf("after the conflict copy: %q", texts)
	}
	if _, err := os.Stat(filepath.Join(desktop.home, "state", "engram", "backups", copyName)); err != nil {
		t.Errorf("the conflict copy is not in the backups: %v", err)
	}
	exported := filepath.Join(t.TempDir(), "laptop.json")
	os.WriteFile(exported, data, 0o600)
	if out := desktop.ok("memory", "import", exported); out != "merged 0 memories by ID\n" {
		t.Errorf("import of the laptop's file: %q", out)
	}
	if got := listed(t, desktop.ok("memory", "list")); len(got) != 2 {
		t.Errorf("after the import: %q", got)
	}
}

// TestMemorySearchCompletesTheLastWord: memory search ranks as the
// inspector does (memory.Store.Search): the last word may be the start of
// one.
func TestMemorySearchCompletesTheLastWord(t *testing.T) {
	c := newCLI(t)
	id := strings.TrimSpace(c.ok("memory", "add", "Backups of the laptop run with rsync every night"))
	c.ok("memory", "add", "Prefers tabs over spaces in Go code")
	out := c.ok("memory", "search", "rsyn")
	if f := strings.Split(strings.SplitN(out, "\n", 2)[0], "\t"); f[0] != id {
		t.Errorf("search rsyn: %q, want %s first", out, id)
	}
}
