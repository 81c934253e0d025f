package memory

import (
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// fileVersion is the version of the file format this package writes.
//
// A store is one JSON file, {"version": 2, "seen": {...}, "entries": [...]},
// pretty-printed with entries in a stable order (oldest first), so a hand
// edit diffs cleanly. Version 1 files (the same without versions) and the
// legacy shapes (a bare array of strings; {"entries": [{"kind", "text",
// "source", "ts"}]}) are read, backed up as <file>.legacy-<time> and
// rewritten as version 2. Files are read leniently (ParseFile): HuJSON
// comments and trailing commas, common time forms, numbers and booleans
// written as strings; two entries with one ID are both kept. Deleted
// entries stay in the file as tombstones for Options.TombstoneTTL so other
// writers and sync tools see the deletion; replaced entries stay as
// history linked by Supersedes/SupersededBy.
const fileVersion = 2

// encodedEntry is the file text of one version of an entry.
type encodedEntry struct {
	entry Entry
	text  []byte
}

// joinFile appends the file made of the Vector, the forked replicas (see
// forkedLocked) and the entries' texts (from jsonEntry) to b; size is a
// capacity hint.
func joinFile(b []byte, seen Vector, forked map[string]bool, parts [][]byte, size int) []byte {
	b = slices.Grow(b, 64+32*(len(seen)+len(forked))+size)
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, fileVersion, 10)
	b = append(b, ",\n  \"seen\": {"...)
	for i, d := range slices.Sorted(maps.Keys(seen)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = jsonString(b, d)
		b = append(b, ": "...)
		b = strconv.AppendUint(b, seen[d], 10)
	}
	if len(seen) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "},\n"...)
	if len(forked) > 0 {
		b = append(b, "  \"forked\": ["...)
		for i, d := range slices.Sorted(maps.Keys(forked)) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = jsonString(b, d)
		}
		b = append(b, "],\n"...)
	}
	b = append(b, "  \"entries\": ["...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	if len(parts) > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "]\n}\n"...)
}

// jsonEntry appends one entry as an element of the entries array.
func jsonEntry(b []byte, e Entry) []byte {
	const ind = "\n      \""
	b = append(b, "\n    {"...)
	b = append(b, ind+`id": `...)
	b = jsonString(b, e.ID)
	b = append(b, ","+ind+`kind": `...)
	b = jsonString(b, string(e.Kind))
	b = append(b, ","+ind+`text": `...)
	b = jsonString(b, e.Text)
	if e.Source != "" {
		b = append(b, ","+ind+`source": `...)
		b = jsonString(b, string(e.Source))
	}
	if e.Pinned {
		b = append(b, ","+ind+`pinned": true`...)
	}
	b = append(b, ","+ind+`created": `...)
	b = jsonTime(b, e.Created)
	b = append(b, ","+ind+`updated": `...)
	b = jsonTime(b, e.Updated)
	if !e.LastUsed.IsZero() {
		b = append(b, ","+ind+`last_used": `...)
		b = jsonTime(b, e.LastUsed)
	}
	if e.Uses != 0 {
		b = append(b, ","+ind+`uses": `...)
		b = strconv.AppendInt(b, int64(e.Uses), 10)
	}
	if e.Supersedes != "" {
		b = append(b, ","+ind+`supersedes": `...)
		b = jsonString(b, e.Supersedes)
	}
	if e.SupersededBy != "" {
		b = append(b, ","+ind+`superseded_by": `...)
		b = jsonString(b, e.SupersededBy)
	}
	if !e.Deleted.IsZero() {
		b = append(b, ","+ind+`deleted": `...)
		b = jsonTime(b, e.Deleted)
		if e.Absent {
			b = append(b, ","+ind+`absent": true`...)
		}
	}
	if !e.Rev.IsZero() {
		b = append(b, ","+ind+`rev": "`...)
		b = e.Rev.appendTo(b)
		b = append(b, '"')
	}
	if !e.Prev.IsZero() {
		b = append(b, ","+ind+`prev": "`...)
		b = e.Prev.appendTo(b)
		b = append(b, '"')
	}
	return append(b, "\n    }"...)
}

func jsonTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

const jsonHex = "0123456789abcdef"

// jsonString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// control characters are escaped; everything else, HTML characters and
// non-ASCII included, is written as is.
func jsonString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
