package memory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/memory"
)

// testClock is a settable time source for stores under test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *testClock { return &testClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openStore(t *testing.T, path string, opts memory.Options) *memory.Store {
	t.Helper()
	s, err := memory.Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustAdd(t *testing.T, s *memory.Store, e memory.Entry) memory.Entry {
	t.Helper()
	got, isNew, err := s.Add(e)
	if err != nil {
		t.Fatalf("Add(%q): %v", e.Text, err)
	}
	if !isNew {
		t.Fatalf("Add(%q) was taken for a duplicate of %s %q", e.Text, got.ID, got.Text)
	}
	return got
}

func entryTexts(es []memory.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Text
	}
	return out
}

// fileDoc is the file as a reader outside the package sees it.
type fileDoc struct {
	Version int               `json:"version"`
	Seen    map[string]uint64 `json:"seen,omitempty"`
	Entries []memory.Entry    `json:"entries"`
}

func readDoc(t *testing.T, path string) fileDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc fileDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, data)
	}
	return doc
}

func TestStoreRoundTrip(t *testing.T) {
	clk := newClock()
	path := filepath.Join(t.TempDir(), "engram", "memory.json")
	s := openStore(t, path, memory.Options{Now: clk.Now})
	if s.Err() != nil || s.Len() != 0 {
		t.Fatalf("new store: err %v, len %d", s.Err(), s.Len())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("opening created the file: %v", err)
	}
	a := mustAdd(t, s, memory.Entry{Kind: "pref", Text: "  Answer in British English.\r\nKeep it short.  ", Pinned: true})
	clk.Advance(time.Second)
	b := mustAdd(t, s, memory.Entry{Kind: memory.KindLesson, Text: "用户喜欢简洁的回答，不要客套话。", Source: memory.SourceAuto})
	clk.Advance(time.Second)
	c := mustAdd(t, s, memory.Entry{Text: `Quotes " and \ and <html> & tabs	stay`, Source: memory.SourceTool})

	if a.Kind != memory.KindPreference || a.Text != "Answer in British English.\nKeep it short." || a.Source != memory.SourceUser {
		t.Errorf("first entry stored as %+v", a)
	}
	if c.Kind != memory.KindFact {
		t.Errorf("entry without kind has kind %q, want fact", c.Kind)
	}
	if len(a.ID) != 10 || strings.Trim(a.ID, "abcdefghijklmnopqrstuvwxyz234567") != "" {
		t.Errorf("ID %q is not 10 characters of lower-case base32", a.ID)
	}
	if !a.Created.Equal(clk.Now().Add(-2*time.Second)) || !a.Updated.Equal(a.Created) {
		t.Errorf("created %v updated %v", a.Created, a.Updated)
	}

	dirInfo, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if dirInfo.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", dirInfo.Mode().Perm())
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", info.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "{\n  \"version\": 2,\n  \"seen\": {\n    \"") || !strings.Contains(string(data), "},\n  \"entries\": [\n    {\n      \"id\": ") {
		t.Errorf("file is not the pretty-printed current shape:\n%s", data)
	}
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatalf("file is not valid JSON: %v", err)
	}
	json.Indent(&indented, compact.Bytes(), "", "  ")
	if indented.String()+"\n" != string(data) {
		t.Errorf("file is not indented as json.Indent would:\n%s", data)
	}
	if !strings.Contains(string(data), "<html> &") || !strings.Contains(string(data), "用户喜欢") {
		t.Errorf("text is escaped needlessly:\n%s", data)
	}
	doc := readDoc(t, path)
	if doc.Version != 2 || !slices.Equal(entryTexts(doc.Entries), entryTexts([]memory.Entry{a, b, c})) {
		t.Errorf("file holds version %d, %q", doc.Version, entryTexts(doc.Entries))
	}

	r := openStore(t, path, memory.Options{Now: clk.Now})
	got := r.List()
	want := []memory.Entry{a, b, c}
	if len(got) != len(want) {
		t.Fatalf("reopened store lists %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if !entriesEqual(got[i], want[i]) {
			t.Errorf("entry %d after reopening:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if e, ok := r.Get(b.ID); !ok || e.Text != b.Text {
		t.Errorf("Get(%s) = %+v, %v", b.ID, e, ok)
	}
	if _, ok := r.Get("nosuchid00"); ok {
		t.Error("Get of an unknown ID found something")
	}
}

// TestStoreFileIsStable: writing the same entries again gives the same
// bytes, and a hand-formatted equivalent file is rewritten the same way.
func TestStoreFileIsStable(t *testing.T) {
	clk := newClock()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{Now: clk.Now})
	for _, txt := range []string{"zeta is last alphabetically", "alpha came second", "mid entry here"} {
		mustAdd(t, s, memory.Entry{Text: txt})
		clk.Advance(time.Minute)
	}
	first, _ := os.ReadFile(path)
	e := s.List()[1]
	if _, err := s.Update(e.ID, memory.Change{Pinned: ptrTo(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(e.ID, memory.Change{Pinned: ptrTo(false)}); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	// Only the updated time and rev of the middle entry, and the Vector, may
	// differ.
	if len(first) != len(second) || countDiffLines(first, second) != 3 {
		t.Errorf("pin and unpin changed more than one line:\n%s\n---\n%s", first, second)
	}
	if got := entryTexts(s.List()); !slices.Equal(got, []string{"zeta is last alphabetically", "alpha came second", "mid entry here"}) {
		t.Errorf("order is not by creation: %q", got)
	}
}

// Entries added in the same millisecond, by one store or by two, list in
// the order they were added, here and in any store that opens the file.
func TestStoreSameTimeKeepsAddOrder(t *testing.T) {
	clk := newClock() // never advanced
	path := filepath.Join(t.TempDir(), "memory.json")
	a := openStore(t, path, memory.Options{Now: clk.Now})
	b := openStore(t, path, memory.Options{Now: clk.Now})
	var want []string
	for i, txt := range []string{"first of all", "second thing", "third item here", "fourth note", "fifth fact", "sixth and last"} {
		mustAdd(t, []*memory.Store{a, b}[i%2], memory.Entry{Text: txt})
		want = append(want, txt)
	}
	if err := a.Reload(); err != nil {
		t.Fatal(err)
	}
	fresh := openStore(t, path, memory.Options{})
	for name, s := range map[string]*memory.Store{"writer": a, "reopened": fresh} {
		if got := entryTexts(s.List()); !slices.Equal(got, want) {
			t.Errorf("%s lists %q, want the order of adding", name, got)
		}
	}
}

func countDiffLines(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	n := 0
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			n++
		}
	}
	return n + max(len(la), len(lb)) - min(len(la), len(lb))
}

func ptrTo[T any](v T) *T { return &v }

func entriesEqual(a, b memory.Entry) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Text == b.Text && a.Source == b.Source &&
		a.Pinned == b.Pinned && a.Uses == b.Uses && a.Supersedes == b.Supersedes &&
		a.SupersededBy == b.SupersededBy && a.Created.Equal(b.Created) &&
		a.Updated.Equal(b.Updated) && a.LastUsed.Equal(b.LastUsed) && a.Deleted.Equal(b.Deleted)
}

func TestStoreBadInputChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{})
	keep := mustAdd(t, s, memory.Entry{Text: "an entry that must survive"})
	before, _ := os.ReadFile(path)

	cases := []struct {
		name string
		e    memory.Entry
		want error
	}{
		{"empty", memory.Entry{Text: ""}, memory.ErrEmpty},
		{"only space", memory.Entry{Text: " \n\t　"}, memory.ErrEmpty},
		{"auto over 400 runes", memory.Entry{Text: strings.Repeat("长", 401), Source: memory.SourceAuto}, memory.ErrTooLong},
		{"user over 8000 runes", memory.Entry{Text: strings.Repeat("x", 8001)}, memory.ErrTooLong},
		{"invalid UTF-8", memory.Entry{Text: "bad \xff byte"}, memory.ErrInvalidText},
		{"NUL", memory.Entry{Text: "nul \x00 inside"}, memory.ErrInvalidText},
		{"escape", memory.Entry{Text: "colour \x1b[31m red"}, memory.ErrInvalidText},
		{"lone CR", memory.Entry{Text: "carriage\rreturn"}, memory.ErrInvalidText},
		{"C1 control", memory.Entry{Text: "c1 \u0085 next line"}, memory.ErrInvalidText},
		{"DEL", memory.Entry{Text: "del \x7f char"}, memory.ErrInvalidText},
		{"unknown kind", memory.Entry{Text: "fine text", Kind: "gossip"}, memory.ErrUnknownKind},
		{"unknown source", memory.Entry{Text: "fine text", Source: "model"}, memory.ErrUnknownSource},
		{"taken ID", memory.Entry{ID: keep.ID, Text: "a different text altogether"}, memory.ErrExists},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.Add(tc.e)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Add: %v, want %v", err, tc.want)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(before) || s.Len() != 1 {
				t.Fatalf("a rejected add changed the store (len %d)", s.Len())
			}
		})
	}
	// At the limits exactly, text is accepted; runes are counted, not bytes.
	mustAdd(t, s, memory.Entry{Text: strings.Repeat("长", 400), Source: memory.SourceAuto})
	mustAdd(t, s, memory.Entry{Text: strings.Repeat("y", 8000)})

	// Update and Supersede check text the same way.
	before, _ = os.ReadFile(path)
	if _, err := s.Update(keep.ID, memory.Change{Text: ptrTo("")}); !errors.Is(err, memory.ErrEmpty) {
		t.Errorf("Update to empty: %v", err)
	}
	if _, err := s.Update(keep.ID, memory.Change{Text: ptrTo(strings.Repeat("z", 401)), Source: ptrTo(memory.SourceAuto)}); !errors.Is(err, memory.ErrTooLong) {
		t.Errorf("Update auto over limit: %v", err)
	}
	if _, err := s.Update(keep.ID, memory.Change{Kind: ptrTo(memory.Kind("rumour"))}); !errors.Is(err, memory.ErrUnknownKind) {
		t.Errorf("Update unknown kind: %v", err)
	}
	if _, err := s.Supersede(keep.ID, memory.Entry{Text: "bell \a"}); !errors.Is(err, memory.ErrInvalidText) {
		t.Errorf("Supersede with control character: %v", err)
	}
	if _, err := s.Update("nosuchid00", memory.Change{Pinned: ptrTo(true)}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Update unknown ID: %v", err)
	}
	if err := s.Remove("nosuchid00"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Remove unknown ID: %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Error("a rejected update changed the file")
	}
}

func TestStoreFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(memory.MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := memory.Open(path, memory.Options{}); !errors.Is(err, memory.ErrTooLarge) {
		t.Fatalf("Open of a file over 64 MiB: %v, want ErrTooLarge", err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() != memory.MaxFileSize+1 {
		t.Fatalf("the large file was touched: %v", err)
	}
}

// A change that would take the file over MaxFileSize is refused and
// leaves the file as it was.
func TestStoreWriteTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB file")
	}
	path := filepath.Join(t.TempDir(), "memory.json")
	text := strings.Repeat("x", memory.MaxTextRunes-100)
	var b bytes.Buffer
	b.WriteString(`{"version": 1, "entries": [`)
	for i := 0; b.Len() < memory.MaxFileSize-memory.MaxTextRunes; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n{\"id\": \"e%d\", \"kind\": \"fact\", \"text\": \"%d %s\", \"created\": \"2026-01-01T00:00:00Z\", \"updated\": \"2026-01-01T00:00:00Z\"}", i, i, text)
	}
	b.WriteString("]}\n")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path, memory.Options{MaxEntries: 1 << 20})
	before, _ := os.ReadFile(path)
	_, _, err := s.Add(memory.Entry{Text: "one more: " + text})
	if !errors.Is(err, memory.ErrTooLarge) {
		t.Fatalf("Add that would pass 64 MiB: %v, want ErrTooLarge", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) || s.Len() != strings.Count(b.String(), `"id"`) {
		t.Fatalf("a refused add changed the store: %d bytes before, %d after, %d entries", len(before), len(after), s.Len())
	}
}

func TestStoreUnsupportedVersionUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json")
	content := `{"version": 3, "entries": [], "future": true}`
	os.WriteFile(path, []byte(content), 0o600)
	if _, err := memory.Open(path, memory.Options{}); !errors.Is(err, memory.ErrUnsupportedVersion) {
		t.Fatalf("Open: %v, want ErrUnsupportedVersion", err)
	}
	data, _ := os.ReadFile(path)
	matches, _ := filepath.Glob(path + ".*-*")
	if string(data) != content || len(matches) != 0 {
		t.Fatalf("a newer file was moved or changed: %q, %v", data, matches)
	}
}

// A file that does not parse is left byte for byte where it is, whatever
// the store does, and the error says where it fails; with a journal,
// changes are kept there until the file parses again.
func TestStoreUnparsableFileLeftInPlace(t *testing.T) {
	for name, tc := range map[string]struct{ content, where string }{
		"truncated":   {`{"version": 1, "entries": [{"id": "abc", "text": "half`, "line 1, column 55: the file ends too soon"},
		"not json":    {"remember: tabs over spaces\n", "line 1, column 1: "},
		"wrong type":  {"{\"version\": 1,\n \"entries\": [{\"id\": \"abc\", \"text\": \"x\"},\n    {\"text\": \"y\", \"pinned\": \"maybe\"}]}", "line 3, column 5: entry 2: "},
		"not ours":    {`{"settings": {"theme": "dark"}}`, "line 1, column 1: not a memory file"},
		"bare number": {`42`, "line 1, column 1: "},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "memory.json")
			os.WriteFile(path, []byte(tc.content), 0o600)
			s := openStore(t, path, memory.Options{})
			var ue *memory.UnparsableError
			if err := s.Err(); !errors.As(err, &ue) || !errors.Is(err, memory.ErrCorrupt) {
				t.Fatalf("Err() = %v, want an *UnparsableError", err)
			}
			if !strings.HasPrefix(ue.Error(), "memory.json "+tc.where) {
				t.Errorf("error reads %q, want it to start %q", ue.Error(), "memory.json "+tc.where)
			}
			if _, _, err := s.Add(memory.Entry{Text: "no journal, no write"}); !errors.Is(err, memory.ErrUnparsable) {
				t.Errorf("Add without a journal: %v, want ErrUnparsable", err)
			}
			state := t.TempDir()
			j := openStore(t, path, memory.Options{StateDir: state})
			mustAdd(t, j, memory.Entry{Text: "kept in the journal"})
			if got := entryTexts(j.List()); len(got) != 1 || got[0] != "kept in the journal" {
				t.Errorf("store with a journal lists %q", got)
			}
			again := openStore(t, path, memory.Options{StateDir: state})
			if got := entryTexts(again.List()); len(got) != 1 || !errors.Is(again.Err(), memory.ErrUnparsable) {
				t.Errorf("reopened: %q, err %v", got, again.Err())
			}
			if data, _ := os.ReadFile(path); string(data) != tc.content {
				t.Fatalf("the file changed: %q", data)
			}
			if names, _ := os.ReadDir(dir); len(names) != 2 { // memory.json and its lock
				t.Errorf("files beside it: %v", names)
			}
			// Fixed by hand: the journal's entry goes into the file.
			os.WriteFile(path, []byte(`{"version": 2, "entries": [{"id": "fixed", "text": "fixed by hand"}]}`), 0o600)
			if err := again.Reload(); err != nil || again.Err() != nil {
				t.Fatalf("reload of the fixed file: %v, %v", err, again.Err())
			}
			if doc := readDoc(t, path); len(doc.Entries) != 2 {
				t.Errorf("fixed file holds %q", entryTexts(doc.Entries))
			}
		})
	}
}

func TestStoreKeepsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "memory.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	link := filepath.Join(dir, "memory.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	s := openStore(t, link, memory.Options{})
	mustAdd(t, s, memory.Entry{Text: "through a symlink"})
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi, err)
	}
	if doc := readDoc(t, real); len(doc.Entries) != 1 {
		t.Errorf("target holds %d entries", len(doc.Entries))
	}
}

func TestStoreEmptyFileIsEmptyStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json")
	os.WriteFile(path, []byte("  \n"), 0o600)
	s := openStore(t, path, memory.Options{})
	if s.Err() != nil || s.Len() != 0 {
		t.Fatalf("empty file: err %v len %d", s.Err(), s.Len())
	}
}

// Some editors start a UTF-8 file with a byte order mark: a hand edit saved
// so is read, not set aside as unreadable.
func TestStoreReadsByteOrderMark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.json")
	content := "\uFEFF" + `{"version": 1, "entries": [{"id": "bom1", "kind": "fact", "text": "saved by Notepad", "created": "2026-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path, memory.Options{})
	if e, ok := s.Get("bom1"); s.Err() != nil || !ok || e.Text != "saved by Notepad" {
		t.Fatalf("Open of a file with a BOM: %+v, err %v", e, s.Err())
	}
	if corrupt, _ := filepath.Glob(path + ".corrupt-*"); len(corrupt) != 0 {
		t.Errorf("the file was set aside: %v", corrupt)
	}
	es, err := memory.ParseImport([]byte("\uFEFF{\"text\": \"one\"}\n{\"text\": \"two\"}\n"), time.Now())
	if err != nil || len(es) != 2 {
		t.Errorf("ParseImport of JSON Lines with a BOM: %d entries, %v", len(es), err)
	}
}

func TestStoreLegacyShapes(t *testing.T) {
	cases := []struct {
		name, content string
		want          []memory.Entry // ID and Created are checked loosely
	}{
		{
			name:    "array of strings",
			content: `["Prefers tabs", "Lives in Lisbon", "  "]`,
			want: []memory.Entry{
				{Kind: memory.KindFact, Text: "Prefers tabs"},
				{Kind: memory.KindFact, Text: "Lives in Lisbon"},
			},
		},
		{
			name: "entries with kind text source ts",
			content: `{"entries": [
				{"kind": "pref", "text": "Use metric units", "source": "user", "ts": "2025-05-01T10:00:00Z"},
				{"kind": "feedback", "text": "Do not apologise", "source": "auto", "ts": 1746093600},
				{"kind": "experience", "text": "go test -race catches the map race", "ts": 1746093600123},
				{"kind": "whatever", "text": "unknown kinds become facts", "ts": "2025-05-01 12:00:00"},
				"a bare string among objects"
			]}`,
			want: []memory.Entry{
				{Kind: memory.KindPreference, Text: "Use metric units", Source: memory.SourceUser, Created: time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)},
				{Kind: memory.KindCorrection, Text: "Do not apologise", Source: memory.SourceAuto, Created: time.Unix(1746093600, 0)},
				{Kind: memory.KindLesson, Text: "go test -race catches the map race", Created: time.UnixMilli(1746093600123)},
				{Kind: memory.KindFact, Text: "unknown kinds become facts", Created: time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)},
				{Kind: memory.KindFact, Text: "a bare string among objects"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memory.json")
			os.WriteFile(path, []byte(tc.content), 0o600)
			mtime := time.Date(2024, 12, 24, 18, 0, 0, 0, time.UTC)
			os.Chtimes(path, mtime, mtime)
			s := openStore(t, path, memory.Options{})
			if s.Err() != nil {
				t.Fatalf("Err: %v", s.Err())
			}
			got := s.List()
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %d entries", entryTexts(got), len(tc.want))
			}
			byText := map[string]memory.Entry{}
			for _, e := range got {
				byText[e.Text] = e
			}
			for _, w := range tc.want {
				e, ok := byText[w.Text]
				if !ok {
					t.Errorf("missing %q", w.Text)
					continue
				}
				wantCreated := w.Created
				if wantCreated.IsZero() {
					wantCreated = mtime
				}
				if e.Kind != w.Kind || e.Source != w.Source || !e.Created.Equal(wantCreated) || !e.Updated.Equal(wantCreated) || e.ID == "" {
					t.Errorf("%q: got kind %q source %q created %v id %q; want %q %q %v", w.Text, e.Kind, e.Source, e.Created, e.ID, w.Kind, w.Source, wantCreated)
				}
			}
			// Written back in the current shape, with the original backed up.
			doc := readDoc(t, path)
			if doc.Version != 2 || len(doc.Entries) != len(tc.want) {
				t.Fatalf("rewritten file: version %d, %d entries", doc.Version, len(doc.Entries))
			}
			backups, _ := filepath.Glob(path + ".legacy-*")
			if len(backups) != 1 {
				t.Fatalf("backups: %v", backups)
			}
			if b, _ := os.ReadFile(backups[0]); string(b) != tc.content {
				t.Error("the backup is not the original")
			}
			// IDs derived from content are stable: another reader of the
			// legacy bytes would find the same ones.
			other := filepath.Join(t.TempDir(), "memory.json")
			os.WriteFile(other, []byte(tc.content), 0o600)
			os.Chtimes(other, mtime, mtime)
			o := openStore(t, other, memory.Options{})
			if !slices.Equal(entryIDs(o.List()), entryIDs(got)) {
				t.Errorf("IDs differ between two readers: %v vs %v", entryIDs(o.List()), entryIDs(got))
			}
		})
	}
}

func entryIDs(es []memory.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestDedupe(t *testing.T) {
	cases := []struct {
		a, b string
		dup  bool
	}{
		{"User prefers tabs.", "user prefers TABS", true},
		{"User prefers tabs", "The user prefers tabs!", true},                           // contained
		{"Prefers tabs", "Prefers tabs over spaces in every language he writes", false}, // under half
		{"ＵＳＥＲ　ｐｒｅｆｅｒｓ　ｔａｂｓ！", "user prefers tabs", true},                               // full width
		{"用户喜欢简洁的回答。", "用户喜欢简洁的回答", true},
		{"回答用中文", "请回答用中文。", true}, // 5 runes in 6
		{"用中文", "请用中文", false},     // 3 runes: below DedupeMinRunes, only equality counts
		{"用中文", "用中文！", true},      // equal after normalising
		{"用户喜欢简洁", "用户喜欢详细", false},
		{"tabs", "tabs only", true},           // 4 runes, half of 8 after normalising
		{"tabs", "tabs, not spaces", false},   // 4 runes, under half of 13
		{"use `go vet`", "Use go vet.", true}, // ASCII symbols are punctuation too
		{"tab", "tabs", false},                // 3 runes
		{"", "", false},
		{"!!!", "???", false}, // nothing left after normalising
	}
	for _, tc := range cases {
		if got := memory.IsDuplicate(tc.a, tc.b); got != tc.dup {
			t.Errorf("IsDuplicate(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.dup)
		}
		if got := memory.IsDuplicate(tc.b, tc.a); got != tc.dup {
			t.Errorf("IsDuplicate(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.dup)
		}
	}
}

func TestStoreAddDuplicate(t *testing.T) {
	clk := newClock()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{Now: clk.Now})
	orig := mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "用户喜欢简洁的回答"})
	other := mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "Deploys with make release"})
	clk.Advance(time.Hour)

	// A stronger kind wins and Updated is refreshed; text and ID stay.
	got, isNew, err := s.Add(memory.Entry{Kind: memory.KindPreference, Text: "用户喜欢简洁的回答。", Source: memory.SourceAuto})
	if err != nil || isNew {
		t.Fatalf("duplicate add: new %v err %v", isNew, err)
	}
	if got.ID != orig.ID || got.Kind != memory.KindPreference || got.Text != orig.Text || !got.Updated.Equal(clk.Now()) || !got.Created.Equal(orig.Created) {
		t.Errorf("duplicate returned %+v", got)
	}
	// A weaker kind does not downgrade.
	clk.Advance(time.Hour)
	got, isNew, _ = s.Add(memory.Entry{Kind: memory.KindFact, Text: "用户喜欢简洁的回答"})
	if isNew || got.Kind != memory.KindPreference || !got.Updated.Equal(clk.Now()) {
		t.Errorf("weaker duplicate: new %v kind %q", isNew, got.Kind)
	}
	// A longer text that contains the old one replaces it (nothing is lost).
	got, isNew, _ = s.Add(memory.Entry{Text: "deploys with `make release`, always"})
	if isNew || got.ID != other.ID || got.Text != "deploys with `make release`, always" {
		t.Errorf("containing duplicate: new %v %+v", isNew, got)
	}
	// A shorter contained one keeps the longer text.
	got, isNew, _ = s.Add(memory.Entry{Text: "Deploys with make release"})
	if isNew || got.Text != "deploys with `make release`, always" {
		t.Errorf("contained duplicate: new %v %+v", isNew, got)
	}
	if s.Len() != 2 {
		t.Errorf("store has %d entries, want 2", s.Len())
	}
	// A deleted entry is not a duplicate target.
	if err := s.Remove(other.ID); err != nil {
		t.Fatal(err)
	}
	if _, isNew, _ := s.Add(memory.Entry{Text: "Deploys with make release"}); !isNew {
		t.Error("re-adding a removed memory was taken for a duplicate")
	}
	// Within one batch, later entries dedupe against earlier ones.
	res, err := s.AddAll([]memory.Entry{{Text: "batch entry number one here"}, {Text: "Batch entry number one here!"}, {Text: ""}})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].New || res[1].New || res[1].Entry.ID != res[0].Entry.ID || !errors.Is(res[2].Err, memory.ErrEmpty) {
		t.Errorf("batch results: %+v", res)
	}
}

// A batch that fails as a whole must not leave the dedupe check believing
// what the batch would have stored.
func TestStoreDedupeAfterFailedBatch(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{MaxEntries: 2})
	tea := mustAdd(t, s, memory.Entry{Text: "likes green tea", Pinned: true})
	mustAdd(t, s, memory.Entry{Text: "owns a cat named Miso", Pinned: true})
	// The first entry would lengthen tea's text; the second does not fit.
	_, err := s.AddAll([]memory.Entry{{Text: "likes green tea in the morning"}, {Text: "works from Lyon on Fridays"}})
	if !errors.Is(err, memory.ErrFull) {
		t.Fatalf("AddAll over a cap of pinned entries: %v, want ErrFull", err)
	}
	if e, _ := s.Get(tea.ID); e.Text != tea.Text {
		t.Fatalf("a failed batch changed %q to %q", tea.Text, e.Text)
	}
	got, isNew, err := s.Add(memory.Entry{Text: "Likes green tea."})
	if err != nil || isNew || got.ID != tea.ID {
		t.Fatalf("Add of a duplicate after a failed batch: %+v, new %v, %v; want %s refreshed", got, isNew, err, tea.ID)
	}
}

func TestStoreEvictionOrder(t *testing.T) {
	clk := newClock()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{MaxEntries: 6, Now: clk.Now})
	add := func(kind memory.Kind, text string, pinned bool) memory.Entry {
		clk.Advance(time.Minute)
		return mustAdd(t, s, memory.Entry{Kind: kind, Text: text, Pinned: pinned, Source: memory.SourceAuto})
	}
	oldPref := add(memory.KindPreference, "oldest preference of all", false)
	pinnedFact := add(memory.KindFact, "pinned fact, oldest fact", true)
	factA := add(memory.KindFact, "fact alpha about the build", false)
	factB := add(memory.KindFact, "fact beta about the deploy", false)
	lesson := add(memory.KindLesson, "lesson about flaky tests", false)
	corr := add(memory.KindCorrection, "correction about naming", false)
	// factA is older, but was used recently: factB is now the least recent fact.
	clk.Advance(time.Minute)
	if err := s.MarkUsed(factA.ID); err != nil {
		t.Fatal(err)
	}

	step := func(newKind memory.Kind, text string, wantGone memory.Entry) {
		t.Helper()
		clk.Advance(time.Minute)
		mustAdd(t, s, memory.Entry{Kind: newKind, Text: text, Source: memory.SourceAuto})
		e, _ := s.Get(wantGone.ID)
		if e.Deleted.IsZero() {
			t.Fatalf("after adding %q, %q was not evicted; live: %q", text, wantGone.Text, entryTexts(s.List()))
		}
		if s.Len() != 6 {
			t.Fatalf("store has %d live entries, cap 6", s.Len())
		}
	}
	step(memory.KindPreference, "new preference one", factB) // weakest kind, least recent
	step(memory.KindPreference, "new preference two", factA) // the other unpinned fact
	step(memory.KindPreference, "new preference three", lesson)
	step(memory.KindPreference, "new preference four", corr)
	step(memory.KindPreference, "new preference five", oldPref) // oldest preference
	if e, _ := s.Get(pinnedFact.ID); !e.Live() {
		t.Fatal("a pinned entry was evicted")
	}
	// Evictions are tombstones and can be restored (which evicts again).
	if err := s.Restore(corr.ID); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Get(corr.ID); !e.Live() || s.Len() != 6 {
		t.Fatalf("restore: %+v, len %d", e, s.Len())
	}
	if live := entryTexts(s.List()); slices.Contains(live, "new preference one") || !slices.Contains(live, "new preference two") {
		t.Errorf("restore evicted another than the least recent preference; live: %q", live)
	}
}

func TestStoreEvictsHistoryFirst(t *testing.T) {
	clk := newClock()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{MaxEntries: 3, Now: clk.Now})
	auto := memory.SourceAuto
	fact := mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "the build server is called hal", Source: auto})
	clk.Advance(time.Minute)
	if _, err := s.Supersede(fact.ID, memory.Entry{Text: "the build server is called deepthought", Source: auto}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	pref := mustAdd(t, s, memory.Entry{Kind: memory.KindPreference, Text: "answers in French", Source: auto})
	clk.Advance(time.Minute)
	mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "the office moved to Lyon", Source: auto})
	if e, _ := s.Get(fact.ID); e.Deleted.IsZero() {
		t.Errorf("the replaced fact was kept over current entries: %+v", e)
	}
	if e, _ := s.Get(pref.ID); !e.Live() || s.Len() != 3 {
		t.Errorf("a current entry was evicted while history was left: live %q", entryTexts(s.List()))
	}
}

func TestStorePinnedNeverEvicted(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{MaxEntries: 3})
	var pinned []memory.Entry
	for _, txt := range []string{"pinned one is a fact", "pinned two is a fact", "pinned three is a fact"} {
		pinned = append(pinned, mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: txt, Pinned: true}))
	}
	_, _, err := s.Add(memory.Entry{Kind: memory.KindPreference, Text: "a preference that does not fit"})
	if !errors.Is(err, memory.ErrFull) {
		t.Fatalf("Add to a store full of pinned entries: %v, want ErrFull", err)
	}
	for _, p := range pinned {
		if e, _ := s.Get(p.ID); !e.Live() {
			t.Errorf("pinned %q lost", p.Text)
		}
	}
	if s.Len() != 3 {
		t.Errorf("len %d", s.Len())
	}
}

func TestStoreSupersedeChain(t *testing.T) {
	clk := newClock()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{Now: clk.Now})
	v1 := mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "The API lives at api.example.com", Pinned: true})
	clk.Advance(time.Minute)
	v2, err := s.Supersede(v1.ID, memory.Entry{Text: "The API moved to api2.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	// Superseding v1 again follows the chain to v2.
	v3, err := s.Supersede(v1.ID, memory.Entry{Kind: memory.KindCorrection, Text: "The API is at api3.example.com since May"})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Supersedes != v1.ID || v3.Supersedes != v2.ID || v2.Kind != memory.KindFact || v3.Kind != memory.KindCorrection || !v3.Pinned {
		t.Errorf("links: v2 %+v v3 %+v", v2, v3)
	}
	r := openStore(t, path, memory.Options{})
	if got := entryTexts(r.List()); !slices.Equal(got, []string{v3.Text}) {
		t.Errorf("live entries %q", got)
	}
	hist := r.History(v2.ID)
	if got := entryTexts(hist); !slices.Equal(got, []string{v1.Text, v2.Text, v3.Text}) {
		t.Fatalf("history %q", got)
	}
	if hist[0].SupersededBy != v2.ID || hist[1].SupersededBy != v3.ID || hist[0].Pinned || hist[0].Live() {
		t.Errorf("old versions: %+v %+v", hist[0], hist[1])
	}
	if len(r.All()) != 3 {
		t.Errorf("All has %d records", len(r.All()))
	}
	if err := s.Remove(v3.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Supersede(v1.ID, memory.Entry{Text: "too late"}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("superseding a deleted chain: %v", err)
	}
}

// With no kind given, the new entry takes the kind of the entry it
// replaces: the newest of the chain, not the one named.
func TestStoreSupersedeInheritsHeadKind(t *testing.T) {
	s := memory.NewInMemory(memory.Options{})
	v1, _, err := s.Add(memory.Entry{Kind: memory.KindFact, Text: "replies in English"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Supersede(v1.ID, memory.Entry{Kind: memory.KindPreference, Text: "replies in French"}); err != nil {
		t.Fatal(err)
	}
	v3, err := s.Supersede(v1.ID, memory.Entry{Text: "replies in French, code comments in English"})
	if err != nil || v3.Kind != memory.KindPreference {
		t.Errorf("Supersede without a kind: %+v, %v; want the preference it replaces", v3, err)
	}
}

func TestStoreRemoveRestoreAndTombstoneExpiry(t *testing.T) {
	clk := newClock()
	path := filepath.Join(t.TempDir(), "memory.json")
	s := openStore(t, path, memory.Options{Now: clk.Now, TombstoneTTL: 48 * time.Hour})
	a := mustAdd(t, s, memory.Entry{Text: "forget me later"})
	b := mustAdd(t, s, memory.Entry{Text: "keep me around"})
	if err := s.Remove(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(a.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("second Remove: %v", err)
	}
	if got := entryTexts(s.List()); !slices.Equal(got, []string{b.Text}) {
		t.Errorf("live after remove: %q", got)
	}
	doc := readDoc(t, path)
	if i := slices.IndexFunc(doc.Entries, func(e memory.Entry) bool { return e.ID == a.ID }); len(doc.Entries) != 2 || i < 0 || doc.Entries[i].Deleted.IsZero() {
		t.Fatalf("tombstone not in file: %+v", doc.Entries)
	}
	if err := s.Restore(a.ID); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 {
		t.Fatal("restore did not bring it back")
	}
	s.Remove(a.ID)
	clk.Advance(49 * time.Hour)
	if err := s.MarkUsed(b.ID); err != nil { // any write drops expired tombstones
		t.Fatal(err)
	}
	if doc := readDoc(t, path); len(doc.Entries) != 1 || doc.Entries[0].ID != b.ID || doc.Entries[0].Uses != 1 {
		t.Fatalf("after expiry the file holds %+v", doc.Entries)
	}
	if err := s.Restore(a.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Restore after expiry: %v", err)
	}
}

func TestStoreUpdate(t *testing.T) {
	clk := newClock()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{Now: clk.Now})
	e := mustAdd(t, s, memory.Entry{Text: "draft text", Source: memory.SourceAuto})
	clk.Advance(time.Minute)
	got, err := s.Update(e.ID, memory.Change{Text: ptrTo(strings.Repeat("w", 500)), Kind: ptrTo(memory.Kind("lesson-learned")), Pinned: ptrTo(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != memory.KindLesson || !got.Pinned || len(got.Text) != 500 || !got.Updated.Equal(clk.Now()) || got.Source != memory.SourceAuto {
		t.Errorf("updated %+v", got)
	}
	clk.Advance(time.Minute)
	same, err := s.Update(e.ID, memory.Change{Pinned: ptrTo(true)})
	if err != nil || !same.Updated.Equal(got.Updated) {
		t.Errorf("a no-op update bumped Updated: %v %v", same.Updated, err)
	}
}

func TestStoreOnChangeAndInMemory(t *testing.T) {
	s := memory.NewInMemory(memory.Options{})
	calls := 0
	s.OnChange(func() { calls++ })
	e := mustAdd(t, s, memory.Entry{Text: "in memory only"})
	s.MarkUsed(e.ID)
	s.MarkUsed("unknown-id")
	if calls != 2 {
		t.Errorf("OnChange ran %d times, want 2", calls)
	}
	if s.Path() != "" || s.ChangedOnDisk() || s.Reload() != nil {
		t.Error("an in-memory store has a file")
	}
	if got, _ := s.Get(e.ID); got.Uses != 1 || got.LastUsed.IsZero() {
		t.Errorf("MarkUsed: %+v", got)
	}
	s.Close()
	if _, _, err := s.Add(memory.Entry{Text: "after close"}); !errors.Is(err, memory.ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
}

func TestStoreConcurrentStores(t *testing.T) {
	// Two Stores on one file in one process exclude each other like two
	// processes do; every add survives.
	path := filepath.Join(t.TempDir(), "memory.json")
	stores := []*memory.Store{openStore(t, path, memory.Options{}), openStore(t, path, memory.Options{})}
	n := 60 // every add is an fsynced write: a second in full, a quarter with -short
	if testing.Short() {
		n = 15
	}
	var wg sync.WaitGroup
	for w, s := range stores {
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					if _, _, err := s.Add(memory.Entry{Text: fmt.Sprintf("store %d goroutine %d entry %d end", w, g, i)}); err != nil {
						t.Error(err)
					}
				}
			}()
		}
	}
	wg.Wait()
	want := 2 * 2 * n
	if got := len(readDoc(t, path).Entries); got != want {
		t.Errorf("file holds %d entries, want %d", got, want)
	}
	for _, s := range stores {
		if err := s.Reload(); err != nil || s.Len() != want {
			t.Errorf("store sees %d entries (%v), want %d", s.Len(), err, want)
		}
	}
}

func TestParseImport(t *testing.T) {
	fallback := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		in    string
		texts []string
		err   string
	}{
		{"current", `{"version": 1, "entries": [{"id": "a1", "kind": "fact", "text": "one"}]}`, []string{"one"}, ""},
		{"array", `["one", "two"]`, []string{"one", "two"}, ""},
		{"jsonl", "{\"text\": \"one\"}\n\n\"two\"\r\n{\"kind\": \"pref\", \"text\": \"three\"}\n", []string{"one", "two", "three"}, ""},
		{"one jsonl line", `{"text": "only"}`, []string{"only"}, ""},
		{"bad line", "{\"text\": \"one\"}\n{oops}\n", nil, "line 2"},
		{"not json", "plain words", nil, "not a memory file"},
		{"newer version", `{"version": 3, "entries": []}`, nil, "unsupported version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			es, err := memory.ParseImport([]byte(tc.in), fallback)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(entryTexts(es), tc.texts) {
				t.Fatalf("got %q, %v; want %q", entryTexts(es), err, tc.texts)
			}
		})
	}
}
