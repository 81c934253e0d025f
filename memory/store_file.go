package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"engram/memory/durable"
)

// diskState is what a store knows of its file: whether it existed and the
// stamp and content hash of the version it last read or wrote.
type diskState struct {
	exists bool
	stamp  durable.Stamp
	hash   uint64
}

// readStoreFile reads the store file, refusing directories and files over
// MaxFileSize. The stamp is taken before reading, so a write that races
// the read shows up as a changed stamp next time.
func readStoreFile(path string) ([]byte, durable.Stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, durable.Stamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, durable.Stamp{}, err
	}
	if fi.IsDir() {
		return nil, durable.Stamp{}, fmt.Errorf("%s is a directory", path)
	}
	if fi.Size() > MaxFileSize {
		return nil, durable.Stamp{}, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, fi.Size(), MaxFileSize)
	}
	// Read into a buffer of the file's size, and the room ReadFrom wants
	// free to read on (to see the file grown meanwhile), instead of
	// growing one from nothing: a big file would be copied over and over.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, durable.Stamp{}, err
	}
	data := buf.Bytes()
	if len(data) > MaxFileSize {
		return nil, durable.Stamp{}, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxFileSize)
	}
	return data, durable.StampOf(fi), nil
}

// writeStoreFile replaces path with data atomically (see
// durable.WriteFileAtomicIf: ready is called right before the rename) and
// returns the stamp of the version it wrote.
func writeStoreFile(path string, data []byte, ready func() error) (durable.Stamp, error) {
	if err := durable.WriteFileAtomicIf(path, data, ready); err != nil {
		return durable.Stamp{}, err
	}
	return durable.Stat(path)
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
