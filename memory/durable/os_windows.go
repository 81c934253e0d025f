//go:build windows

package durable

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// renameRetry is how long rename keeps trying while another process holds
// the target open (a virus scanner, an indexer, a reader).
const renameRetry = 2 * time.Second

// rename replaces newpath with oldpath, retrying briefly on sharing
// violations: Windows refuses to replace a file another process has open
// without FILE_SHARE_DELETE.
func rename(oldpath, newpath string) error {
	deadline := time.Now().Add(renameRetry)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := os.Rename(oldpath, newpath)
		if err == nil || !sharingViolation(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}

func sharingViolation(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// syncUnsupported reports the errors of a directory fsync that mean it
// cannot be done: on Windows a directory handle opened for reading cannot
// be flushed.
func syncUnsupported(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_INVALID_HANDLE) ||
		errors.Is(err, windows.ERROR_INVALID_FUNCTION) || errors.Is(err, os.ErrInvalid)
}

// processAlive reports whether a process with the ID runs.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	const stillActive = 259
	return code == stillActive
}
