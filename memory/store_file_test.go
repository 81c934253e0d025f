package memory_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

func TestStoreUnsupportedVersionUntouched(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
