package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/tailscale/hujson"
)

// fileEntry is an entry as found in a file, current or legacy, typed
// leniently (see flexTime and the others): the current fields, plus "ts"
// from the legacy {"entries":[{"kind","text","source","ts"}]} shape.
type fileEntry struct {
	ID           flexString `json:"id"`
	Kind         flexString `json:"kind"`
	Text         flexString `json:"text"`
	Source       flexString `json:"source"`
	Pinned       flexBool   `json:"pinned"`
	Created      flexTime   `json:"created"`
	Updated      flexTime   `json:"updated"`
	LastUsed     flexTime   `json:"last_used"`
	Uses         flexInt    `json:"uses"`
	Supersedes   flexString `json:"supersedes"`
	SupersededBy flexString `json:"superseded_by"`
	Deleted      flexTime   `json:"deleted"`
	Absent       flexBool   `json:"absent"`
	Rev          flexString `json:"rev"`
	Prev         flexString `json:"prev"`
	TS           flexTime   `json:"ts"`
}

// strictEntry is fileEntry with the standard types, which decode much
// faster: files Engram wrote parse with it (see decodeStrict), and
// anything it refuses goes the lenient way.
type strictEntry struct {
	ID           string    `json:"id"`
	Kind         string    `json:"kind"`
	Text         string    `json:"text"`
	Source       string    `json:"source"`
	Pinned       bool      `json:"pinned"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	LastUsed     time.Time `json:"last_used"`
	Uses         int       `json:"uses"`
	Supersedes   string    `json:"supersedes"`
	SupersededBy string    `json:"superseded_by"`
	Deleted      time.Time `json:"deleted"`
	Absent       bool      `json:"absent"`
	Rev          string    `json:"rev"`
	Prev         string    `json:"prev"`
	TS           flexTime  `json:"ts"`
}

// strictDoc is fileDoc with strictEntry.
type strictDoc struct {
	Version *int              `json:"version"`
	Seen    map[string]uint64 `json:"seen"`
	Forked  []string          `json:"forked"`
	Entries *[]strictEntry    `json:"entries"`
}

// decodeStrict parses a file in the standard types, as encoding/json
// would, with github.com/goccy/go-json, which reads a big file four to
// five times faster; ok is false when it does not parse so (a hand edit,
// an older shape), for the lenient way to read it. FuzzDecodeStrictAgrees
// holds it to encoding/json's reading.
func decodeStrict(body []byte) (doc strictDoc, ok bool) {
	return doc, gojson.Unmarshal(body, &doc) == nil
}

// lenient converts a strictly parsed file to the lenient types. Its
// entries are converted one at a time as they are cleaned (see
// fileDoc.strict), not all at once into a second copy.
func (d strictDoc) lenient() fileDoc {
	doc := fileDoc{Forked: d.Forked, strict: d.Entries}
	if d.Version != nil {
		v := flexInt(*d.Version)
		doc.Version = &v
	}
	if d.Seen != nil {
		doc.Seen = make(map[string]flexInt, len(d.Seen))
		for k, n := range d.Seen {
			doc.Seen[k] = flexInt(min(n, 1<<62))
		}
	}
	return doc
}

// lenient converts a strictly parsed entry to the lenient types.
func (e *strictEntry) lenient() fileEntry {
	return fileEntry{
		ID: flexString(e.ID), Kind: flexString(e.Kind), Text: flexString(e.Text), Source: flexString(e.Source),
		Pinned: flexBool(e.Pinned), Created: flexTime{e.Created}, Updated: flexTime{e.Updated},
		LastUsed: flexTime{e.LastUsed}, Uses: flexInt(e.Uses), Supersedes: flexString(e.Supersedes),
		SupersededBy: flexString(e.SupersededBy), Deleted: flexTime{e.Deleted}, Absent: flexBool(e.Absent),
		Rev: flexString(e.Rev), Prev: flexString(e.Prev), TS: e.TS,
	}
}

// fileDoc is the top level of an object-shaped file.
type fileDoc struct {
	Version *flexInt           `json:"version"`
	Seen    map[string]flexInt `json:"seen"`
	Forked  []string           `json:"forked"`
	Entries *[]fileEntry       `json:"entries"`
	// strict holds the entries instead of Entries when the file parsed
	// strictly (see strictDoc.lenient).
	strict *[]strictEntry
}

// fileContents is what a memory file holds.
type fileContents struct {
	entries []Entry
	seen    Vector
	// forked lists the replicas found shared by two machines (see
	// forkedLocked): no Vector's word on them counts.
	forked []string
	// legacy: a shape or version other than the current one, to rewrite.
	legacy bool
}

// errUnrecognised: valid JSON that is not a memory file.
var errUnrecognised = errors.New(`not a memory file (want {"version": 2, "entries": [...]})`)

var bom = []byte("\uFEFF")

// ParseFile parses the contents of a memory file in any shape a store
// accepts: the current {"version": 2, "seen": {...}, "entries": [...]},
// version 1 (the same without versions), a bare JSON array of strings, or
// the legacy {"entries": [{"kind", "text", "source", "ts"}]}. It reads what
// people type by hand: // and /* */ comments and trailing commas (HuJSON),
// times as dates or in other common forms, numbers and booleans written as
// strings.
//
// Entries are cleaned up for use: a missing ID is derived from the content
// (the same in every process), a missing or unknown kind becomes fact, a
// missing time becomes fallback (callers pass the file's modification
// time), entries with empty text are skipped, and of two entries with one
// ID (a copied block) both are kept, the second under an ID derived from
// its content. Empty input is an empty store; a leading byte order mark is
// ignored. legacy reports a shape or version other than the current one.
// A version above 2 is ErrUnsupportedVersion. Anything else that does not
// parse is a *PosError saying where ("line 12, column 5: …").
func ParseFile(data []byte, fallback time.Time) (entries []Entry, legacy bool, err error) {
	fc, err := parseDoc(data, fallback)
	return fc.entries, fc.legacy, err
}

// parseDoc parses a memory file (see ParseFile).
func parseDoc(data []byte, fallback time.Time) (fileContents, error) {
	body := bytes.TrimPrefix(data, bom)
	shift := len(data) - len(body)
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return fileContents{}, nil
	}
	var doc fileDoc
	var raw []fileEntry
	switch trimmed[0] {
	case '{':
		if strict, ok := decodeStrict(body); ok {
			doc = strict.lenient()
		} else {
			var err error
			if doc, err = parseSlowly(body, shift); err != nil {
				return fileContents{}, err
			}
		}
	case '[':
		var err error
		if raw, err = parseSlowArray(body, shift); err != nil {
			return fileContents{}, err
		}
	default:
		line, col := lineCol(data, shift+len(body)-len(bytes.TrimLeft(body, " \t\r\n")))
		return fileContents{}, &PosError{Line: line, Column: col, Err: errUnrecognised}
	}
	fc := fileContents{legacy: trimmed[0] == '['}
	if trimmed[0] == '{' {
		switch {
		case doc.Version != nil && *doc.Version > fileVersion:
			return fileContents{}, fmt.Errorf("%w %d (this Engram reads versions 1 and %d)", ErrUnsupportedVersion, *doc.Version, fileVersion)
		case doc.Version != nil && *doc.Version < 1:
			return fileContents{}, &PosError{Line: 1, Column: 1, Err: fmt.Errorf("invalid version %d", *doc.Version)}
		case doc.Version == nil && doc.Entries == nil && doc.strict == nil:
			return fileContents{}, &PosError{Line: 1, Column: 1, Err: errUnrecognised}
		}
		fc.legacy = doc.Version == nil || *doc.Version < fileVersion
		if doc.Entries != nil {
			raw = *doc.Entries
		}
		for d, n := range doc.Seen {
			if validID(d) && n > 0 {
				if fc.seen == nil {
					fc.seen = Vector{}
				}
				fc.seen[d] = uint64(n)
			}
		}
		for _, d := range doc.Forked {
			if validID(d) {
				fc.forked = append(fc.forked, d)
			}
		}
	}
	if doc.strict != nil {
		strict := *doc.strict
		fc.entries = cleanEach(len(strict), func(i int) fileEntry { return strict[i].lenient() }, fallback)
	} else {
		fc.entries = cleanEntries(raw, fallback)
	}
	return fc, nil
}

// parseSlowly reads an object-shaped file that encoding/json refused as it
// is: with comments or trailing commas (standardised first, which keeps
// every byte offset), entries written as bare strings, or a value of the
// wrong type, reported with its line and column. shift is where body
// starts in the file.
func parseSlowly(body []byte, shift int) (fileDoc, error) {
	std, err := standardize(body, shift)
	if err != nil {
		return fileDoc{}, err
	}
	var doc fileDoc
	dec := json.NewDecoder(bytes.NewReader(std))
	if _, err := dec.Token(); err != nil { // '{'
		return fileDoc{}, posErr(std, shift, dec.InputOffset(), err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fileDoc{}, posErr(std, shift, dec.InputOffset(), err)
		}
		key, _ := tok.(string)
		off := dec.InputOffset()
		switch key {
		case "entries":
			raw, err := decodeElements(dec, std, shift)
			if err != nil {
				return fileDoc{}, err
			}
			doc.Entries = &raw
		case "version":
			var v flexInt
			if err := dec.Decode(&v); err != nil {
				return fileDoc{}, posErr(std, shift, off, fmt.Errorf("version: %w", err))
			}
			doc.Version = &v
		case "seen":
			if err := dec.Decode(&doc.Seen); err != nil {
				return fileDoc{}, posErr(std, shift, off, fmt.Errorf("seen: %w", err))
			}
		case "forked":
			if err := dec.Decode(&doc.Forked); err != nil {
				return fileDoc{}, posErr(std, shift, off, fmt.Errorf("forked: %w", err))
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fileDoc{}, posErr(std, shift, off, err)
			}
		}
	}
	return doc, nil
}

// parseSlowArray reads a file that is a bare array of entries.
func parseSlowArray(body []byte, shift int) ([]fileEntry, error) {
	std, err := standardize(body, shift)
	if err != nil {
		return nil, err
	}
	return decodeElements(json.NewDecoder(bytes.NewReader(std)), std, shift)
}

// standardize turns HuJSON into JSON with the same byte offsets; a syntax
// error says where.
func standardize(body []byte, shift int) ([]byte, error) {
	std, err := hujson.Standardize(bytes.Clone(body))
	if err == nil {
		return std, nil
	}
	msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), "hujson: "), "\n", `\n`)
	var line, col int
	if n, _ := fmt.Sscanf(msg, "line %d, column %d:", &line, &col); n == 2 {
		_, msg, _ = strings.Cut(msg, ": ")
		if strings.Contains(msg, "unexpected EOF") {
			msg = endsTooSoon
		}
		if line == 1 {
			col += shift
		}
		return nil, &PosError{Line: line, Column: col, Err: errors.New(msg)}
	}
	return nil, posErr(body, shift, int64(len(body)), errors.New(msg))
}

// endsTooSoon explains a file that stops mid-value.
const endsTooSoon = "the file ends too soon (cut off, or an editor was saving it)"

// decodeElements reads the array at the decoder, one element at a time so
// that an error names the element and where it starts.
func decodeElements(dec *json.Decoder, std []byte, shift int) ([]fileEntry, error) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		if err == nil {
			err = errors.New(`"entries" is not a list`)
		}
		return nil, posErr(std, shift, dec.InputOffset(), err)
	}
	var out []fileEntry
	for i := 1; dec.More(); i++ {
		off := dec.InputOffset()
		var el json.RawMessage
		if err := dec.Decode(&el); err != nil {
			return nil, posErr(std, shift, off, err)
		}
		fe, err := parseElement(el)
		if err != nil {
			return nil, posErr(std, shift, off, fmt.Errorf("entry %d: %w", i, err))
		}
		out = append(out, fe)
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, posErr(std, shift, dec.InputOffset(), err)
	}
	return out, nil
}

// posErr places err at the first value at or after off in std (past
// white space and commas); a *json.SyntaxError carries its own offset.
func posErr(std []byte, shift int, off int64, err error) error {
	o := int(off)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		o = int(se.Offset) - 1
	}
	for o >= 0 && o < len(std) && strings.IndexByte(" \t\r\n,:", std[o]) >= 0 {
		o++
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || se != nil && strings.Contains(se.Error(), "end of JSON input") {
		err = errors.New(endsTooSoon)
	}
	line, col := lineColShift(std, shift, o)
	return &PosError{Line: line, Column: col, Err: err}
}

// lineColShift is lineCol of an offset in the part of the file after a
// byte order mark of shift bytes, which counts on the first line.
func lineColShift(std []byte, shift, off int) (int, int) {
	line, col := lineCol(std, off)
	if line == 1 {
		col += shift
	}
	return line, col
}

// ParseImport parses entries to import: anything ParseFile reads, or JSON
// Lines where each line is an entry object or a string. Blank lines are
// skipped. An error names the line that failed.
func ParseImport(data []byte, fallback time.Time) ([]Entry, error) {
	fc, err := parseImport(data, fallback)
	return fc.entries, err
}

// parseImport is ParseImport with the file's versions, when it is a
// memory file.
func parseImport(data []byte, fallback time.Time) (fileContents, error) {
	fc, err := parseDoc(data, fallback)
	if err == nil || errors.Is(err, ErrUnsupportedVersion) {
		return fc, err
	}
	trimmed := trimFile(data)
	if len(trimmed) == 0 || trimmed[0] != '{' && trimmed[0] != '"' {
		return fileContents{}, err
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
				return fileContents{}, err // one line that is neither: the file error says more
			}
			return fileContents{}, fmt.Errorf("line %d: %w", n+1, lerr)
		}
		raw = append(raw, fe)
	}
	return fileContents{entries: cleanEntries(raw, fallback)}, nil
}

// trimFile drops the white space around a file's contents and a leading
// byte order mark, which some editors write at the start of UTF-8 files.
func trimFile(data []byte) []byte {
	return bytes.TrimSpace(bytes.TrimPrefix(data, bom))
}

// parseElement reads one entry: an object or a bare string (its text).
func parseElement(el []byte) (fileEntry, error) {
	var fe fileEntry
	switch {
	case len(el) > 0 && el[0] == '"':
		var text string
		err := json.Unmarshal(el, &text)
		fe.Text = flexString(text)
		return fe, err
	case len(el) > 0 && el[0] == '{':
		err := json.Unmarshal(el, &fe)
		return fe, err
	}
	return fe, errors.New("want an object or a string")
}

// cleanEntries turns parsed entries into store entries (see ParseFile).
func cleanEntries(raw []fileEntry, fallback time.Time) []Entry {
	return cleanEach(len(raw), func(i int) fileEntry { return raw[i] }, fallback)
}

// cleanEach is cleanEntries of the n entries entry returns, by index.
func cleanEach(n int, entry func(i int) fileEntry, fallback time.Time) []Entry {
	out := make([]Entry, 0, n)
	pos := make(map[string]bool, n)
	for i := range n {
		fe := entry(i)
		if strings.TrimSpace(string(fe.Text)) == "" && fe.Deleted.IsZero() { // a forgotten entry's tombstone has no text
			continue
		}
		kind, err := CheckKind(Kind(fe.Kind))
		if err != nil {
			kind = KindFact
		}
		rev, _ := ParseRev(string(fe.Rev)) // a garbled rev is a hand edit: stamped again
		prev, _ := ParseRev(string(fe.Prev))
		e := Entry{
			ID: string(fe.ID), Kind: kind, Text: string(fe.Text), Source: Source(fe.Source), Pinned: bool(fe.Pinned),
			Created: fe.Created.Time, Updated: fe.Updated.Time, LastUsed: fe.LastUsed.Time, Uses: max(int(fe.Uses), 0),
			Supersedes: string(fe.Supersedes), SupersededBy: string(fe.SupersededBy), Deleted: fe.Deleted.Time, Rev: rev,
			Prev: prev, Absent: bool(fe.Absent) && !fe.Deleted.IsZero(),
		}
		if e.Created.IsZero() {
			e.Created = fe.TS.Time
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
		if pos[e.ID] {
			// A second entry with the ID (a block copied by hand): keep it
			// as a new entry of its own.
			base := e.ID
			e.ID = contentID("duplicate", base, e.Text)
			for i := 2; pos[e.ID]; i++ {
				e.ID = contentID("duplicate", base, e.Text, fmt.Sprint(i))
			}
			e.Rev, e.Prev = Rev{}, Rev{}
		}
		pos[e.ID] = true
		out = append(out, e)
	}
	return out
}
