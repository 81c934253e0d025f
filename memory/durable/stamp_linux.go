package durable

import (
	"io/fs"
	"syscall"
)

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
