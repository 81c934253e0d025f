//go:build !linux

package memory

import (
	"io/fs"
	"os"
)

// lockFile is a no-op outside Linux: writers in one process are still
// serialised by the Store's mutex, but two processes are not coordinated.
func lockFile(f *os.File) error { return nil }

// unlockFile releases the lock taken by lockFile.
func unlockFile(f *os.File) error { return nil }

// stampOf identifies a version of a file by size and modification time.
func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}
