package durable

import (
	"io/fs"
	"os"
	"syscall"
)

// Lock takes the exclusive advisory lock (flock) on f, waiting for it.
// flock locks belong to the open file, so two opens in one process exclude
// each other as two processes do.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// Unlock releases the lock taken by Lock.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// StampOf identifies a version of a file without reading it: device,
// inode, size, modification and change times. An atomic replace gives a new
// inode, an in-place write new times.
func StampOf(fi fs.FileInfo) Stamp {
	st := Stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.dev = uint64(sys.Dev)
		st.ino = sys.Ino
		st.ctime = sys.Ctim.Nano()
	}
	return st
}
