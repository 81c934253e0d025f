package memory_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"engram/memory"
)

// Case 6 of issue 21: an editor saving in place (truncate, pause, write
// into the same open file) while the store writes: the store waits for
// the file to settle instead of judging it empty and renaming over it, so
// the hand edit and the store's change are both kept.
func TestSyncEditorSavingInPlace(t *testing.T) {
	t.Parallel()
	for _, pause := range []time.Duration{200 * time.Millisecond, 1500 * time.Millisecond} {
		t.Run(pause.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "memory.json")
			s := openStore(t, path, memory.Options{StateDir: t.TempDir()})
			mustAdd(t, s, memory.Entry{Text: "written by the store"})
			doc := readDoc(t, path)
			doc.Entries = append(doc.Entries, memory.Entry{ID: "byhand", Text: "typed in the editor"})
			edited, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				time.Sleep(pause)
				_, err := f.Write(edited)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				done <- err
			}()
			time.Sleep(20 * time.Millisecond)
			mustAdd(t, s, memory.Entry{Text: "added while the editor saved"})
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if err := s.Reload(); err != nil {
				t.Fatal(err)
			}
			got := entryTexts(readDoc(t, path).Entries)
			slices.Sort(got)
			want := []string{"added while the editor saved", "typed in the editor", "written by the store"}
			if !slices.Equal(got, want) {
				t.Errorf("the file holds %q, want %q", got, want)
			}
		})
	}
}
