//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package durable

import "os"

// OpenDirLock returns nil where directories cannot be locked (Windows,
// where an open lock file cannot be deleted, so a Locker is enough).
func OpenDirLock(dir string) (*os.File, error) { return nil, nil }
