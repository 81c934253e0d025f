//go:build !linux

package durable

import (
	"io/fs"
	"os"
)

// Lock is a no-op outside Linux: writers in one process must serialise
// themselves (the memory Store does, with its mutex), and two processes
// are not coordinated.
func Lock(f *os.File) error { return nil }

// Unlock releases the lock taken by Lock.
func Unlock(f *os.File) error { return nil }

// StampOf identifies a version of a file by size and modification time.
func StampOf(fi fs.FileInfo) Stamp {
	return Stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}
