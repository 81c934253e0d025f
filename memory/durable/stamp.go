package durable

import (
	"os"
	"time"
)

// Stamp identifies one version of a file without reading it (see StampOf).
// Stamps are comparable: equal stamps mean the file did not change.
type Stamp struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

// Stat stamps the file at path without reading it.
func Stat(path string) (Stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return StampOf(fi), nil
}

// ModTime is the file's modification time as the stamp saw it.
func (s Stamp) ModTime() time.Time { return time.Unix(0, s.mtime) }
