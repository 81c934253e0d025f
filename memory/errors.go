package memory

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
)

// Errors returned by the Store. They are wrapped with detail ("text is 512
// characters, at most 400 for distilled memories"), so test them with
// errors.Is.
var (
	// ErrEmpty: the text is empty or only white space.
	ErrEmpty = errors.New("memory text is empty")
	// ErrTooLong: the text has more runes than its source allows.
	ErrTooLong = errors.New("memory text is too long")
	// ErrInvalidText: the text is not valid UTF-8 or holds control characters
	// other than newline and tab.
	ErrInvalidText = errors.New("memory text is not valid text")
	// ErrUnknownKind: the kind is not one of the four kinds or their aliases.
	ErrUnknownKind = errors.New("unknown memory kind")
	// ErrUnknownSource: the source is not user, tool, auto or import.
	ErrUnknownSource = errors.New("unknown memory source")
	// ErrNotFound: no memory has the ID, or it was deleted.
	ErrNotFound = errors.New("memory not found")
	// ErrExists: Add was given an ID that is already taken.
	ErrExists = errors.New("memory ID already exists")
	// ErrFull matches a *FullError.
	ErrFull = errors.New("memory is full")
	// ErrTooLarge: the file is (or would become) larger than MaxFileSize.
	ErrTooLarge = errors.New("memory file is too large")
	// ErrUnsupportedVersion: the file was written by a newer Engram. It is
	// left untouched.
	ErrUnsupportedVersion = errors.New("memory file has an unsupported version")
	// ErrCorrupt matches an *UnparsableError too (the name of the state
	// before files were left in place).
	ErrCorrupt = errors.New("memory file was unreadable")
	// ErrUnparsable matches an *UnparsableError with errors.Is.
	ErrUnparsable = errors.New("memory file does not parse")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("memory store is closed")
)

// FullError is the error of a change that would take the store over its
// cap when only entries a person wrote (or pinned ones) are left, which
// are never evicted. It matches ErrFull.
type FullError struct {
	Stored, Max int
}

// Error reads "memory is full: 1,000 of 1,000; review old memories".
func (e *FullError) Error() string {
	return fmt.Sprintf("memory is full: %s of %s; review old memories", thousands(e.Stored), thousands(e.Max))
}

// Is makes errors.Is(err, ErrFull) true.
func (e *FullError) Is(target error) bool { return target == ErrFull }

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// UnparsableError is the error state of a store whose file does not
// parse: a hand edit with a mistake, a file cut off, a sync tool caught
// mid-copy. The file is never moved, overwritten or taken for empty: the
// store serves the entries it had (after Open, those of the journal), and
// changes go to the journal only (without a journal they fail with this
// error) until the file parses again, or is repaired (Repair); then it is
// merged like any outside change. Err is the parse error, a *PosError
// where the place is known.
type UnparsableError struct {
	Path string // the store file
	Err  error
}

// Error reads "memory.json line 12, column 5: …; fix it or run engramctl
// memory repair: until then changes are kept in the journal, not the
// file".
func (e *UnparsableError) Error() string {
	sep := ": "
	var pe *PosError
	if errors.As(e.Err, &pe) {
		sep = " "
	}
	return fmt.Sprintf("%s%s%v; fix it or run engramctl memory repair: until then changes are kept aside, not written to it",
		filepath.Base(e.Path), sep, e.Err)
}

// Unwrap returns the parse error.
func (e *UnparsableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnparsable) and errors.Is(err, ErrCorrupt)
// true.
func (e *UnparsableError) Is(target error) bool {
	return target == ErrUnparsable || target == ErrCorrupt
}
