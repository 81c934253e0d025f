//go:build !linux

package durable

import "io/fs"

// StampOf identifies a version of a file by size and modification time
// (nanoseconds on APFS and NTFS, so an atomic replace shows).
func StampOf(fi fs.FileInfo) Stamp {
	return Stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}
