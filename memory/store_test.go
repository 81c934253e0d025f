package memory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	t.Parallel()
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
	t.Parallel()
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
	// differ, beside the rev it replaced (prev, a line of its own).
	second = regexp.MustCompile(`,\n\s*"prev": "[^"]*"`).ReplaceAll(second, nil)
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

func TestStoreAddDuplicate(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestStoreSupersedeChain(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	clk := newClock()
	s := openStore(t, filepath.Join(t.TempDir(), "memory.json"), memory.Options{Now: clk.Now})
	e := mustAdd(t, s, memory.Entry{Text: "draft text", Source: memory.SourceAuto})
	clk.Advance(time.Minute)
	got, err := s.Update(e.ID, memory.Change{Text: ptrTo(strings.Repeat("w", 500)), Kind: ptrTo(memory.Kind("lesson-learned")), Pinned: ptrTo(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != memory.KindLesson || !got.Pinned || len(got.Text) != 500 || !got.Updated.Equal(clk.Now()) || got.Source != memory.SourceUser {
		t.Errorf("updated %+v", got)
	}
	// A person's new text keeps the old one as history, and the memory is
	// theirs now.
	if h := entryTexts(s.History(e.ID)); len(h) != 2 || h[0] != "draft text" || s.Len() != 1 {
		t.Errorf("History after the edit = %q, %d live", h, s.Len())
	}
	clk.Advance(time.Minute)
	same, err := s.Update(e.ID, memory.Change{Pinned: ptrTo(true)})
	if err != nil || !same.Updated.Equal(got.Updated) {
		t.Errorf("a no-op update bumped Updated: %v %v", same.Updated, err)
	}
}

func TestStoreOnChangeAndInMemory(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
