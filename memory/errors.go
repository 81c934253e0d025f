package memory

import (
	"errors"
	"fmt"
	"path/filepath"
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
	// ErrFull: the change would take the store over its cap and every
	// other entry is pinned.
	ErrFull = errors.New("memory store is full")
	// ErrTooLarge: the file is (or would become) larger than MaxFileSize.
	ErrTooLarge = errors.New("memory file is too large")
	// ErrUnsupportedVersion: the file was written by a newer Engram. It is
	// left untouched.
	ErrUnsupportedVersion = errors.New("memory file has an unsupported version")
	// ErrCorrupt matches a *CorruptError with errors.Is.
	ErrCorrupt = errors.New("memory file was unreadable")
	// ErrUnparsable matches an *UnparsableError with errors.Is.
	ErrUnparsable = errors.New("memory file does not parse")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("memory store is closed")
)

// CorruptError is the error state of a store whose file did not parse. The
// file was moved aside to SavedAs (never overwritten, never read as empty);
// the store carries on without it. Err is the parse error.
type CorruptError struct {
	Path    string // the store file
	SavedAs string // where the unreadable bytes are now
	Err     error
}

// Error reads "memory.json was unreadable; saved a copy as …".
func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s was unreadable; saved a copy as %s", filepath.Base(e.Path), e.SavedAs)
}

// Unwrap returns the parse error.
func (e *CorruptError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// UnparsableError is the error state of a store whose file was changed,
// after Open, into something that does not parse: a hand edit with a
// mistake, or a sync tool caught mid-copy. Unlike a file found corrupt at
// Open, it is someone's work in progress: the file is left as it is, the
// store keeps the entries it had, and changes fail with this error (they
// would have to overwrite the file) until the file parses again; then it
// is merged like any outside change. Err is the parse error.
type UnparsableError struct {
	Path string // the store file
	Err  error
}

// Error reads "memory.json does not parse (…); fix it: until then Engram
// keeps the memories it had and saves no changes".
func (e *UnparsableError) Error() string {
	return fmt.Sprintf("%s does not parse (%v); fix it: until then Engram keeps the memories it had and saves no changes",
		filepath.Base(e.Path), e.Err)
}

// Unwrap returns the parse error.
func (e *UnparsableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnparsable) true.
func (e *UnparsableError) Is(target error) bool { return target == ErrUnparsable }
