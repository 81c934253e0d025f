package memory

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeStrictAgrees: whatever the fast decoder of Engram's own files
// accepts, encoding/json reads too, to the same values; so a file parses
// the same with it as it did without.
func FuzzDecodeStrictAgrees(f *testing.F) {
	for _, seed := range []string{
		`{"version": 2, "entries": []}`,
		`{"version": 2, "seen": {"dev1": 5}, "forked": ["dev2"], "entries": [{"id": "a", "kind": "fact", "text": "a\nb\t\"c\" <d> & é 中",
		  "source": "user", "pinned": true, "created": "2025-01-01T00:00:00.123+02:00", "updated": "2025-01-02T00:00:00Z",
		  "uses": 3, "supersedes": "old", "superseded_by": "new", "deleted": "2025-01-04T00:00:00Z", "absent": false,
		  "rev": "dev1:5:abc", "prev": "dev1:4:abd", "ts": 1700000000}]}`,
		`{"VERSION": 2, "Entries": [{"TEXT": "case"}]}`,
		`{"version": 2, "entries": [{"text": "\u0000\u001f\u007f\u2028 \ud800 \udc00\ud800 \\u"}]}`,
		"{\"version\": 2, \"entries\": [{\"text\": \"bad \xff\xfe bytes \xe4\xb8\"}]}",
		`{"version": 2, "entries": [{"text": "x", "text": "y"}], "entries": null}`,
		`{"version": 2.0, "entries": []}`,
		`{"version": 2, "seen": {"d": 18446744073709551616}}`,
		`{"version": 2, "entries": [{"uses": -1, "created": "2025-13-01T00:00:00Z"}]}`,
		`{"version": 2, "entries": [{"created": null, "pinned": null, "text": null}]} `,
		`{"version": 2} {}`,
		`{"version": 2, "entries": [{"ts": "2024-01-02 03:04:05"}, {"ts": "yesterday"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := decodeStrict(data)
		if !ok {
			return
		}
		var std strictDoc
		if err := json.Unmarshal(data, &std); err != nil {
			t.Fatalf("the fast decoder read %q, encoding/json refuses it: %v", data, err)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q reads differently:\nfast %+v\nstd  %+v", data, fast, std)
		}
	})
}
