//go:build linux

package memory

import (
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes the exclusive advisory lock (flock) on f, waiting for it.
// flock locks belong to the open file, so two Stores in one process exclude
// each other as two processes do.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// unlockFile releases the lock taken by lockFile.
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// stampOf identifies a version of a file without reading it: device,
// inode, size, modification and change times. An atomic replace gives a new
// inode, an in-place write new times.
func stampOf(fi fs.FileInfo) fileStamp {
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.dev = uint64(sys.Dev)
		st.ino = sys.Ino
		st.ctime = sys.Ctim.Nano()
	}
	return st
}
