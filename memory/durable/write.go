package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrReadOnly is the error of a write to a read-only file: WriteFileAtomic
// leaves it alone rather than replacing it with a writable copy.
var ErrReadOnly = errors.New("file is read-only")

// staleTempAge is the age after which a temporary file is taken for stale
// whatever its writer: a live writer holds one for milliseconds, and a
// process ID may be reused.
const staleTempAge = time.Hour

// tempPrefix starts the names of the temporary files of atomic writes
// next to path; the writer's process ID and a random suffix follow
// (".memory.json.tmp-1234-567890"), so a writer only ever removes the
// temporary files of writers that are gone.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// WriteFileAtomic replaces path with data so that a crash leaves either the
// old or the new content, never a mix: a temporary file in the same
// directory (created 0700 if missing), mode 0600, synced, renamed over
// path (retried briefly while another process holds the file open on
// Windows), then the directory synced so the rename itself is durable
// (where the system supports it). A read-only file at path is left alone:
// the error wraps ErrReadOnly.
func WriteFileAtomic(path string, data []byte) error { return WriteFileAtomicIf(path, data, nil) }

// WriteFileAtomicIf is WriteFileAtomic that calls ready, when not nil,
// right before the rename, and leaves path as it is if ready fails: a
// writer checks there that the file is still the version it read.
func WriteFileAtomicIf(path string, data []byte, ready func() error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("write %s: %w (mode %04o); make it writable to save changes", path, ErrReadOnly, fi.Mode().Perm())
	}
	f, err := os.CreateTemp(dir, tempPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = writeSynced(f, data)
	if err == nil && ready != nil {
		if err = ready(); err != nil {
			return err
		}
	}
	if err == nil {
		err = rename(tmp, path)
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

// SyncDir fsyncs a directory so a rename in it is durable. Systems and
// file systems that cannot sync a directory (Windows, some network and
// FUSE file systems) are not an error: there the rename is as durable as
// they make it.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !syncUnsupported(err) {
		return err
	}
	return nil
}

// RemoveStaleTemps deletes the temporary files WriteFileAtomic left next to
// path when their writer died mid-write: those of processes that no longer
// run, and any older than an hour. The temporary files of live writers
// are left alone, so it is safe to call at any time.
func RemoveStaleTemps(path string) {
	dir := filepath.Dir(path)
	names, _ := os.ReadDir(dir)
	prefix := tempPrefix(path)
	for _, de := range names {
		rest, ok := strings.CutPrefix(de.Name(), prefix)
		if !ok {
			continue
		}
		if staleTemp(rest, de) {
			os.Remove(filepath.Join(dir, de.Name()))
		}
	}
}

// staleTemp decides on one temporary file; rest is its name after the
// prefix: "<pid>-<random>", or only "<random>" from older versions.
func staleTemp(rest string, de fs.DirEntry) bool {
	if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > staleTempAge {
		return true
	}
	pidText, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return true
	}
	return pid != os.Getpid() && !processAlive(pid)
}
