//go:build !unix && !windows

package durable

import (
	"errors"
	"os"
)

// rename replaces newpath with oldpath.
func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// syncUnsupported reports the errors of a directory fsync that mean it
// cannot be done.
func syncUnsupported(err error) bool { return errors.Is(err, os.ErrInvalid) }

// processAlive cannot tell on these systems: temporary files go by age.
func processAlive(int) bool { return true }
