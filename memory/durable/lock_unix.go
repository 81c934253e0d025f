//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package durable

import (
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
