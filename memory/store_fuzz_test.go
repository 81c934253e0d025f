package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func encodeForTest(entries []Entry) []byte {
	parts := make([][]byte, len(entries))
	for i, e := range entries {
		parts[i] = jsonEntry(nil, e)
	}
	return joinFile(nil, nil, nil, parts, 0)
}

// FuzzParseFile: the loader never panics, and whatever it accepts survives
// a write and a read unchanged, and is read the same by encoding/json; an
// error it gives for a broken file says where (line and column within the
// file); and salvaging a file for Repair never panics and reads only
// entries that a write and a read keep.
func FuzzParseFile(f *testing.F) {
	for _, seed := range []string{
		``,
		`[]`,
		`["one", "two"]`,
		`{"version": 1, "entries": []}`,
		`{"entries": [{"kind": "pref", "text": "x", "source": "user", "ts": 1700000000}]}`,
		`{"entries": [{"kind": "lesson-learned", "text": "y", "ts": "2024-01-02 03:04:05"}, "bare"]}`,
		`{"version": 1, "entries": [{"id": "abc", "kind": "fact", "text": "a\nb\t\"c\" <d> & é 中", "source": "auto", "pinned": true,
		  "created": "2025-01-01T00:00:00.123+02:00", "updated": "2025-01-02T00:00:00Z", "last_used": "2025-01-03T00:00:00Z",
		  "uses": 3, "supersedes": "old", "superseded_by": "new", "deleted": "2025-01-04T00:00:00Z"},
		  {"id": "abc", "text": "dup id", "updated": "2026-01-01T00:00:00Z"}]}`,
		`{"version": 2, "entries": []}`,
		`{"version": 0}`,
		`{"id": "x"}` + "\n" + `"line two"`,
		`{"version": 1, "entries": [{"text": "\u0000\u001f\u007f\u2028 \ud800"}]}`,
		"{\n  // a comment\n  \"version\": 2, /* and another */\n  \"entries\": [{\"text\": \"x\",},],\n}",
		`{"version": "2", "seen": {"dev1": 5, "bad id!": 3}, "entries": [{"id": "a", "text": "t", "rev": "dev1:5:abc"}]}`,
		`{"version": 2, "entries": [{"text": "dates", "created": "2025-01-01", "updated": "2025/01/02 10:30", "last_used": 1735689600123}]}`,
		`{"version": 2, "entries": [{"text": "strings", "uses": "3", "pinned": "yes", "id": 12345}]}`,
		`{"version": 2, "entries": [{"text": "bad", "uses": "many"}]}`,
		`{"version": 2, "entries": [{"text": "cut`,
		"{\"version\": 2, \"entries\": [\n{\"id\": \"x\", \"text\": \"ok\"},\n{\"id\": \"x\", \"text\": \"dup\"},\n{\"text\": \"unclosed\n]}",
		`{"version": 2, "entries": [{"text": "r", "rev": "nodevice"}, {"text": "s", "rev": "d:0"}]}`,
		"\uFEFF{\"version\": 2, \"entries\": [1]}",
	} {
		f.Add([]byte(seed))
	}
	fallback := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseImport(data, fallback)
		for _, e := range salvageEntries(data, fallback) {
			again, _, err := ParseFile(encodeForTest([]Entry{e}), fallback)
			if err != nil || len(again) != 1 || !sameEntry(again[0], e) {
				t.Fatalf("a salvaged entry does not survive a write: %+v, %v", e, err)
			}
		}
		entries, _, err := ParseFile(data, fallback)
		var pe *PosError
		if errors.As(err, &pe) {
			lines := bytes.Count(data, []byte("\n")) + 1
			if pe.Line < 1 || pe.Line > lines || pe.Column < 1 {
				t.Fatalf("error at line %d, column %d of a %d-line file: %v", pe.Line, pe.Column, lines, err)
			}
		}
		if err != nil {
			return
		}
		out := encodeForTest(entries)
		again, legacy, err := ParseFile(out, fallback)
		if err != nil || legacy {
			t.Fatalf("re-reading our own output: legacy %v, %v\n%s", legacy, err, out)
		}
		if len(again) != len(entries) {
			t.Fatalf("%d entries became %d", len(entries), len(again))
		}
		for i := range entries {
			if !sameEntry(entries[i], again[i]) {
				t.Fatalf("entry %d changed:\n%+v\n%+v", i, entries[i], again[i])
			}
		}
		var doc struct {
			Version int     `json:"version"`
			Entries []Entry `json:"entries"`
		}
		if err := json.Unmarshal(out, &doc); err != nil || doc.Version != fileVersion || len(doc.Entries) != len(entries) {
			t.Fatalf("encoding/json reads our output differently: %v\n%s", err, out)
		}
		for i := range entries {
			if !sameEntry(entries[i], doc.Entries[i]) {
				t.Fatalf("encoding/json reads entry %d as %+v, want %+v", i, doc.Entries[i], entries[i])
			}
		}
	})
}
