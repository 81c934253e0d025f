package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// fileEntry is an entry as found in a file, current or legacy: the current
// fields, plus "ts" from the legacy {"entries":[{"kind","text","source","ts"}]}
// shape, which may be a time string or Unix seconds/milliseconds.
type fileEntry struct {
	ID           string          `json:"id"`
	Kind         string          `json:"kind"`
	Text         string          `json:"text"`
	Source       string          `json:"source"`
	Pinned       bool            `json:"pinned"`
	Created      time.Time       `json:"created"`
	Updated      time.Time       `json:"updated"`
	LastUsed     time.Time       `json:"last_used"`
	Uses         int             `json:"uses"`
	Supersedes   string          `json:"supersedes"`
	SupersededBy string          `json:"superseded_by"`
	Deleted      time.Time       `json:"deleted"`
	TS           json.RawMessage `json:"ts"`
}

// fileDoc is the top level of an object-shaped file.
type fileDoc struct {
	Version *int         `json:"version"`
	Entries *[]fileEntry `json:"entries"`
}

// looseDoc is the top level when some entries are bare strings.
type looseDoc struct {
	Version *int               `json:"version"`
	Entries *[]json.RawMessage `json:"entries"`
}

// errUnrecognised: valid JSON that is not a memory file.
var errUnrecognised = errors.New(`not a memory file (want {"version": 1, "entries": [...]})`)

// ParseFile parses the contents of a memory file in any shape a store
// accepts: the current {"version": 1, "entries": [...]}, a bare JSON array
// of strings, or the legacy {"entries": [{"kind", "text", "source", "ts"}]}.
// Entries are cleaned up for use: a missing ID is derived from the content
// (the same in every process), a missing or unknown kind becomes fact, a
// missing time becomes fallback (callers pass the file's modification time),
// entries with empty text are skipped, and of two entries with one ID the
// later updated is kept. Empty input is an empty store; a leading byte
// order mark is ignored. legacy reports a shape other than the current
// one. A version above 1 is ErrUnsupportedVersion; anything else that does
// not parse is an error.
func ParseFile(data []byte, fallback time.Time) (entries []Entry, legacy bool, err error) {
	data = trimFile(data)
	if len(data) == 0 {
		return nil, false, nil
	}
	var raw []fileEntry
	switch data[0] {
	case '[':
		raw, err = parseArray(data)
		legacy = true
	case '{':
		var doc fileDoc
		err = json.Unmarshal(data, &doc)
		if err == nil && doc.Entries != nil {
			raw = *doc.Entries
		} else if err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				return nil, false, err
			}
			// Some entries are bare strings: decode them one by one.
			var loose looseDoc
			if err = json.Unmarshal(data, &loose); err != nil {
				return nil, false, err
			}
			doc.Version = loose.Version
			if loose.Entries != nil {
				raw, err = parseElements(*loose.Entries)
				if err != nil {
					return nil, false, err
				}
				doc.Entries = &raw
			}
		}
		switch {
		case doc.Version != nil && *doc.Version > fileVersion:
			return nil, false, fmt.Errorf("%w %d (this Engram reads version %d)", ErrUnsupportedVersion, *doc.Version, fileVersion)
		case doc.Version != nil && *doc.Version < fileVersion:
			return nil, false, fmt.Errorf("invalid version %d", *doc.Version)
		case doc.Version == nil && doc.Entries == nil:
			return nil, false, errUnrecognised
		}
		legacy = doc.Version == nil
	default:
		return nil, false, errUnrecognised
	}
	if err != nil {
		return nil, false, err
	}
	return cleanEntries(raw, fallback), legacy, nil
}

// ParseImport parses entries to import: anything ParseFile reads, or JSON
// Lines where each line is an entry object or a string. Blank lines are
// skipped. An error names the line that failed.
func ParseImport(data []byte, fallback time.Time) ([]Entry, error) {
	es, _, err := ParseFile(data, fallback)
	if err == nil || errors.Is(err, ErrUnsupportedVersion) {
		return es, err
	}
	trimmed := trimFile(data)
	if len(trimmed) == 0 || trimmed[0] != '{' && trimmed[0] != '"' {
		return nil, err
	}
	lines := bytes.Split(trimmed, []byte{'\n'})
	var raw []fileEntry
	for n, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		fe, lerr := parseElement(line)
		if lerr != nil {
			if len(lines) == 1 {
				return nil, err // one line that is neither: the file error says more
			}
			return nil, fmt.Errorf("line %d: %w", n+1, lerr)
		}
		raw = append(raw, fe)
	}
	return cleanEntries(raw, fallback), nil
}

// trimFile drops the white space around a file's contents and a leading
// byte order mark, which some editors write at the start of UTF-8 files.
func trimFile(data []byte) []byte {
	return bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\uFEFF")))
}

func parseArray(data []byte) ([]fileEntry, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		return nil, err
	}
	return parseElements(elems)
}

func parseElements(elems []json.RawMessage) ([]fileEntry, error) {
	out := make([]fileEntry, 0, len(elems))
	for i, el := range elems {
		fe, err := parseElement(el)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		out = append(out, fe)
	}
	return out, nil
}

// parseElement reads one entry: an object or a bare string (its text).
func parseElement(el []byte) (fileEntry, error) {
	var fe fileEntry
	switch {
	case len(el) > 0 && el[0] == '"':
		err := json.Unmarshal(el, &fe.Text)
		return fe, err
	case len(el) > 0 && el[0] == '{':
		err := json.Unmarshal(el, &fe)
		return fe, err
	}
	return fe, errors.New("want an object or a string")
}

// cleanEntries turns parsed entries into store entries (see ParseFile).
func cleanEntries(raw []fileEntry, fallback time.Time) []Entry {
	out := make([]Entry, 0, len(raw))
	pos := make(map[string]int, len(raw))
	for _, fe := range raw {
		if strings.TrimSpace(fe.Text) == "" && fe.Deleted.IsZero() { // a forgotten entry's tombstone has no text
			continue
		}
		kind, err := CheckKind(Kind(fe.Kind))
		if err != nil {
			kind = KindFact
		}
		e := Entry{
			ID: fe.ID, Kind: kind, Text: fe.Text, Source: Source(fe.Source), Pinned: fe.Pinned,
			Created: fe.Created, Updated: fe.Updated, LastUsed: fe.LastUsed, Uses: max(fe.Uses, 0),
			Supersedes: fe.Supersedes, SupersededBy: fe.SupersededBy, Deleted: fe.Deleted,
		}
		if e.Created.IsZero() {
			e.Created = parseLegacyTime(fe.TS)
		}
		if e.Created.IsZero() {
			e.Created = e.Updated
		}
		if e.Created.IsZero() {
			e.Created = fallback
		}
		if e.Updated.IsZero() {
			e.Updated = e.Created
		}
		if !validID(e.ID) {
			e.ID = contentID(string(e.Kind), e.Text)
		}
		if i, dup := pos[e.ID]; dup {
			if e.Updated.After(out[i].Updated) {
				out[i] = e
			}
			continue
		}
		pos[e.ID] = len(out)
		out = append(out, e)
	}
	return out
}

// parseLegacyTime reads a legacy "ts": an RFC 3339 time, a date and time
// without zone (UTC), a date, or Unix seconds or milliseconds. Anything
// else is the zero time.
func parseLegacyTime(raw json.RawMessage) time.Time {
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}
	}
	var s string
	if raw[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return time.Time{}
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
				return t
			}
		}
	} else {
		s = string(raw)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f <= 0 || f > 1e15 {
		return time.Time{}
	}
	if f > 1e11 { // milliseconds
		return time.UnixMilli(int64(f)).UTC()
	}
	return time.Unix(int64(f), 0).UTC()
}
