//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package durable

import "os"

// Lock is a no-op on systems without flock or LockFileEx (Plan 9, wasm,
// Solaris, AIX): writers in one process must serialise themselves (the
// memory Store does, with its mutex), and two processes are not
// coordinated.
func Lock(f *os.File) error { return nil }

// Unlock releases the lock taken by Lock.
func Unlock(f *os.File) error { return nil }
