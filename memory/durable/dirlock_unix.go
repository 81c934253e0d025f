//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package durable

import "os"

// OpenDirLock opens dir itself for locking (Lock, Unlock): unlike a lock
// file, a directory that holds the files it guards cannot be deleted
// underneath the writers, so writers without another lock in common stay
// in turn whatever is tidied away. On Windows, where an open lock file
// cannot be deleted, it returns nil: a Locker is enough there.
func OpenDirLock(dir string) (*os.File, error) { return os.Open(dir) }
