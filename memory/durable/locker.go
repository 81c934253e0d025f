package durable

import (
	"fmt"
	"os"
)

// Locker is an exclusive lock between processes on a lock file that may be
// deleted or replaced underneath it (a person tidying a folder, a sync
// tool). Lock checks, once it holds the lock, that the file it locked is
// still the one at the path; if not it opens the new one and locks again,
// so two writers never each hold a lock on a different file for long. The
// lock file itself is never deleted.
type Locker struct {
	path string
	f    *os.File
}

// OpenLock opens (creating, mode 0600) the lock file at path.
func OpenLock(path string) (*Locker, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &Locker{path: path, f: f}, nil
}

// Path is the lock file.
func (l *Locker) Path() string { return l.path }

// Lock takes the lock, waiting for it.
func (l *Locker) Lock() error {
	for range 100 {
		if err := Lock(l.f); err != nil {
			return fmt.Errorf("lock %s: %w", l.path, err)
		}
		if l.current() {
			return nil
		}
		Unlock(l.f)
		f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("lock %s: %w", l.path, err)
		}
		l.f.Close()
		l.f = f
	}
	return fmt.Errorf("lock %s: the lock file keeps being replaced", l.path)
}

// current reports whether the open lock file is still the one at the path.
func (l *Locker) current() bool {
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(l.path)
	return err == nil && os.SameFile(held, now)
}

// Unlock releases the lock.
func (l *Locker) Unlock() error { return Unlock(l.f) }

// Close releases the lock file.
func (l *Locker) Close() error { return l.f.Close() }
