package memory_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"engram/memory"
)

// A file that stops parsing while the store is open is a person's edit in
// progress (or a sync tool mid-copy): it is left alone, the memories stay,
// changes are refused, and the error lasts until the file parses again.
func TestStoreUnparsableAfterOpenIsLeftAlone(t *testing.T) {
	t.Parallel()
	for name, fix := range map[string]func(t *testing.T, path string, good []byte){
		"fixed by hand": func(t *testing.T, path string, good []byte) {
			text := strings.Replace(string(good), `"entries": [`, `"entries": [
    {"id": "hand0001", "kind": "fact", "text": "added while fixing the file"},`, 1)
			writeStoreText(t, path, text)
		},
		"undone": func(t *testing.T, path string, good []byte) {
			writeStoreText(t, path, string(good))
		},
		"deleted": func(t *testing.T, path string, good []byte) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memory.json")
			s := openStore(t, path, memory.Options{Now: newClock().Now})
			notified := 0
			s.OnChange(func() { notified++ })
			mustAdd(t, s, memory.Entry{Text: "The user's editor is Helix."})
			mustAdd(t, s, memory.Entry{Text: "The user deploys on Fridays."})
			good, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			before := entryTexts(s.List())

			broken := strings.Replace(string(good), `"entries": [`, `"entries": [,`, 1)
			writeStoreText(t, path, broken)
			notified = 0
			for range 2 { // the same broken file: the same error, one notification
				err := s.Reload()
				var ue *memory.UnparsableError
				if !errors.Is(err, memory.ErrUnparsable) || !errors.As(err, &ue) || ue.Path != path {
					t.Fatalf("Reload = %v, want an *UnparsableError", err)
				}
				if !errors.Is(s.Err(), memory.ErrUnparsable) {
					t.Errorf("Err() = %v, want ErrUnparsable", s.Err())
				}
			}
			if notified != 1 {
				t.Errorf("%d notifications for entering the error state, want 1", notified)
			}
			if _, _, err := s.Add(memory.Entry{Text: "Written while the file is broken."}); !errors.Is(err, memory.ErrUnparsable) {
				t.Errorf("Add on a broken file = %v, want ErrUnparsable", err)
			}
			if got := entryTexts(s.List()); !slices.Equal(got, before) {
				t.Errorf("memories while broken: %q, want %q", got, before)
			}
			if data, _ := os.ReadFile(path); string(data) != broken {
				t.Errorf("the broken file was changed:\n%s", data)
			}
			if aside, _ := filepath.Glob(path + ".*-*"); len(aside) != 0 {
				t.Errorf("files set aside: %v", aside)
			}

			fix(t, path, good)
			if err := s.Reload(); err != nil {
				t.Fatalf("Reload after the fix: %v", err)
			}
			if err := s.Err(); err != nil {
				t.Errorf("Err() after the fix: %v", err)
			}
			for _, want := range before {
				if !slices.Contains(entryTexts(s.List()), want) {
					t.Errorf("lost %q: %q", want, entryTexts(s.List()))
				}
			}
			if name == "fixed by hand" && !slices.Contains(entryTexts(s.List()), "added while fixing the file") {
				t.Errorf("the fixed file's new entry was not loaded: %q", entryTexts(s.List()))
			}
			mustAdd(t, s, memory.Entry{Text: "Written after the fix."})
			if doc := readDoc(t, path); !slices.Contains(entryTexts(doc.Entries), "Written after the fix.") {
				t.Errorf("the file after the fix holds %q", entryTexts(doc.Entries))
			}
		})
	}
}

func writeStoreText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
