package memory

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// fileStamp identifies one version of the store file (see stampOf).
type fileStamp struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

// diskState is what a store knows of its file: whether it existed and the
// stamp and content hash of the version it last read or wrote.
type diskState struct {
	exists bool
	stamp  fileStamp
	hash   uint64
}

// readStoreFile reads the store file, refusing directories and files over
// MaxFileSize. The stamp is taken before reading, so a write that races
// the read shows up as a changed stamp next time.
func readStoreFile(path string) ([]byte, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, err
	}
	if fi.IsDir() {
		return nil, fileStamp{}, fmt.Errorf("%s is a directory", path)
	}
	if fi.Size() > MaxFileSize {
		return nil, fileStamp{}, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, fi.Size(), MaxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fileStamp{}, err
	}
	if len(data) > MaxFileSize {
		return nil, fileStamp{}, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxFileSize)
	}
	return data, stampOf(fi), nil
}

// statStoreFile stamps the file without reading it.
func statStoreFile(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return stampOf(fi), nil
}

// tempPattern names the temporary files of atomic writes next to path.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// writeStoreFile replaces path with data atomically (see WriteFileAtomic)
// and returns the stamp of the version it wrote.
func writeStoreFile(path string, data []byte) (fileStamp, error) {
	if err := WriteFileAtomic(path, data); err != nil {
		return fileStamp{}, err
	}
	return statStoreFile(path)
}

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
		err = syncDir(dir)
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

// syncDir fsyncs a directory so a rename in it is durable.
func syncDir(dir string) error {
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

// removeStaleTemps deletes temporary files left by writers that died
// mid-write. Only call it holding the lock: no live writer has one then.
func removeStaleTemps(path string) {
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, t := range tmps {
		os.Remove(t)
	}
}

// setAside moves path to path+"."+tag+"-<UTC time>" (with a counter if that
// name is taken) and returns the new name.
func setAside(path, tag string, now time.Time) (string, error) {
	base := path + "." + tag + "-" + now.UTC().Format("20060102T150405Z")
	name := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = base + "-" + strconv.Itoa(i)
	}
	if err := os.Rename(path, name); err != nil {
		return "", err
	}
	return name, syncDir(filepath.Dir(path))
}

// copyAside writes data to path+"."+tag+"-<UTC time>" (mode 0600) and
// returns the name.
func copyAside(path, tag string, data []byte, now time.Time) (string, error) {
	base := path + "." + tag + "-" + now.UTC().Format("20060102T150405Z")
	name := base
	for i := 2; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			name = base + "-" + strconv.Itoa(i)
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return name, err
	}
}

// followLinks resolves path while it is a symlink, even one whose target
// does not exist yet, so that atomic writes replace the target and keep the
// link (a memory.json kept in a dotfiles repository).
func followLinks(path string) string {
	for range 32 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path
		}
		target, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return path
}
