//go:build unix

package durable

import (
	"errors"
	"os"
	"syscall"
)

// rename replaces newpath with oldpath.
func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// syncUnsupported reports the errors of a directory fsync that mean the
// file system cannot do it.
func syncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EBADF)
}

// processAlive reports whether a process with the ID runs.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
