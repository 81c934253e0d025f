//go:build windows

package durable

import (
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes the exclusive lock (LockFileEx) on the first byte of f,
// waiting for it. Windows locks belong to the handle, so two opens in one
// process exclude each other as two processes do.
func Lock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

// Unlock releases the lock taken by Lock.
func Unlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
