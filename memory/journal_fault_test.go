package memory_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"engram/memory"
)

// journalFile returns the one journal under state.
func journalFile(t *testing.T, state string) string {
	t.Helper()
	journals, _ := filepath.Glob(filepath.Join(state, "journal", "*.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("journals: %v", journals)
	}
	return journals[0]
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestJournalFaults: what the journal holds comes back once memory.json is
// gone, whatever was left in it by a crash or a stranger: an append after
// a cut last line starts on a line of its own, and a line of any length
// (here 2 MiB, over bufio.Scanner's limits) is read or skipped alone.
func TestJournalFaults(t *testing.T) {
	t.Parallel()
	for name, junk := range map[string]string{
		"cut last line": `{"at":"2026-03-01T12:00:00Z","id":"cut","te`,
		"long line":     `{"at":"2026-03-01T12:00:00Z","id":"long","text":"` + strings.Repeat("x", 2<<20) + "\"}\n",
		"long garbage":  strings.Repeat("y", 2<<20) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path, state := filepath.Join(t.TempDir(), "memory.json"), t.TempDir()
			opts := memory.Options{StateDir: state, Now: newClock().Now}
			s := openStore(t, path, opts)
			mustAdd(t, s, memory.Entry{Text: "Before the fault."})
			appendFile(t, journalFile(t, state), junk)
			mustAdd(t, s, memory.Entry{Text: "After the fault."})
			s.Close()
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			got := entryTexts(openStore(t, path, opts).List())
			slices.Sort(got)
			if want := []string{"After the fault.", "Before the fault."}; !slices.Equal(got, want) {
				t.Fatalf("from the journal: %q, want %q", got, want)
			}
		})
	}
}
