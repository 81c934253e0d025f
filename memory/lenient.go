package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Lenient field types: what people type by hand into memory.json, read
// where the intent is clear ("uses": "3", "pinned": "yes", a date without
// a time) and refused with a reason where it is not.

// flexTime reads a time: RFC 3339, a date and time without zone (UTC), a
// date, or Unix seconds or milliseconds, as a string or a number.
type flexTime struct{ time.Time }

// timeLayouts are the forms of a time flexTime reads, most common first.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02",
	"2006/01/02 15:04:05",
	"2006/01/02 15:04",
	time.RFC1123Z,
	time.RFC1123,
	"2 Jan 2006",
	"Jan 2, 2006",
}

// UnmarshalJSON reads the forms of flexTime; null and "" are the zero time.
func (t *flexTime) UnmarshalJSON(b []byte) error {
	if len(b) > 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0 {
		if v, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1])); err == nil {
			t.Time = v
			return nil
		}
	}
	if string(b) == "null" {
		return nil
	}
	var s string
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		s = string(b)
	}
	v, ok := parseTime(s)
	if !ok {
		return fmt.Errorf("%s is not a time (write it like \"2025-01-02\" or \"2025-01-02T15:04:05Z\")", b)
	}
	t.Time = v
	return nil
}

// parseTime reads the forms of flexTime; "" is the zero time.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, true
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1e15 {
		return time.Time{}, false
	}
	if f > 1e11 { // milliseconds
		return time.UnixMilli(int64(f)).UTC(), true
	}
	return time.Unix(int64(f), 0).UTC(), true
}

// flexInt reads a whole number, or one written as a string.
type flexInt int

// UnmarshalJSON reads a number or a string holding one; null is 0.
func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	s = strings.TrimSpace(s)
	if s == "" {
		*n = 0
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != float64(int(f)) {
			return fmt.Errorf("%s is not a whole number", b)
		}
		v = int(f)
	}
	*n = flexInt(v)
	return nil
}

// flexBool reads true or false, also written as a string ("true", "yes",
// "1") or as the numbers 1 and 0.
type flexBool bool

// UnmarshalJSON reads the forms of flexBool; null is false.
func (v *flexBool) UnmarshalJSON(b []byte) error {
	s := string(b)
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "y", "on", "1":
		*v = true
	case "false", "no", "n", "off", "0", "", "null":
		*v = false
	default:
		return fmt.Errorf("%s is not true or false", b)
	}
	return nil
}

// flexString reads a string, or a number or boolean written without
// quotes (an ID typed as 123).
type flexString string

// UnmarshalJSON reads a string, a number or a boolean; null is "".
func (s *flexString) UnmarshalJSON(b []byte) error {
	switch {
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = flexString(v)
	case string(b) == "null":
	case b[0] == '{' || b[0] == '[':
		return fmt.Errorf("want a string, not %s", shorten(b))
	default:
		*s = flexString(b)
	}
	return nil
}

// shorten cuts a JSON value for an error message.
func shorten(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "…"
	}
	return string(b)
}

// lineCol turns a byte offset in data into a 1-based line and column
// (columns count bytes, as compilers do).
func lineCol(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = 1 + off - (bytes.LastIndexByte(data[:off], '\n') + 1)
	return line, col
}

// PosError is a parse error at a place in the file.
type PosError struct {
	Line, Column int
	Err          error
}

// Error reads "line 12, column 5: …".
func (e *PosError) Error() string {
	return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
}

// Unwrap returns the cause.
func (e *PosError) Unwrap() error { return e.Err }
