package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// tempPattern names the temporary files of atomic writes next to path.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// WriteFileAtomic replaces path with data so that a crash leaves either the
// old or the new content, never a mix: a temporary file in the same
// directory (created 0700 if missing), mode 0600, synced, renamed over
// path, then the directory synced so the rename itself is durable.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = writeSynced(f, data)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = SyncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeSynced writes data to a new temporary file, makes it private, syncs
// and closes it.
func writeSynced(f *os.File, data []byte) error {
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SyncDir fsyncs a directory so a rename in it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// RemoveStaleTemps deletes the temporary files WriteFileAtomic left next to
// path when its writer died mid-write. Only call it holding the file's
// lock: no live writer has one then.
func RemoveStaleTemps(path string) {
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, t := range tmps {
		os.Remove(t)
	}
}
