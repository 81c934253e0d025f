package embedding

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"engram/memory/durable"
)

// What the cache keeps. One cache file serves every store (the global one,
// each project's) and every process (the app, engramctl) embedding with
// its model, so no process knows all the texts still wanted: a store's
// index pass proves only what that store wants. A vector is therefore
// wanted while something uses it: each lookup or put stamps its record
// with the day, and a record not used for staleDays is stale (the vector
// of an edited or deleted memory, of an old chunk, of a past query, or of
// a project not opened for a month, which is embedded again when it is).
const (
	staleDays = 30
	// compactMinStale is the fewest stale records worth a rewrite, so
	// that a small cache is not rewritten over a few old vectors.
	compactMinStale = 256
	// unusedAfter is how long the cache file of a model no longer chosen
	// stays: one not written to (used) for longer is removed.
	unusedAfter = staleDays * 24 * time.Hour
)

// worthCompacting reports whether a cache of total records, stale of them
// stale, is to be compacted: more than half of it, and at least
// compactMinStale records. The file then stays under twice the size of
// what is wanted.
func worthCompacting(total, stale int) bool {
	return stale >= compactMinStale && 2*stale > total
}

// isStale reports whether a record last used on day is stale on today.
func isStale(day, today uint32) bool { return today > day && today-day > staleDays }

// compactDaily considers compacting in the background, at most once a
// day (openCache does the first day), so that a process that runs for
// months prunes too.
func (c *cache) compactDaily() {
	today := dayOf(c.now())
	c.mu.Lock()
	if c.closed || c.checked == today {
		c.mu.Unlock()
		return
	}
	c.checked = today
	c.bg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.bg.Done()
		_ = c.compactIfStale() // a failed compaction leaves a cache that works
	}()
}

// compactIfStale compacts the cache when its stale records are worth it.
func (c *cache) compactIfStale() error {
	today := dayOf(c.now())
	c.mu.Lock()
	c.checked = today
	n, stale := len(c.at), 0
	for _, s := range c.at {
		if isStale(s.day, today) {
			stale++
		}
	}
	c.mu.Unlock()
	if !worthCompacting(n, stale) {
		return nil
	}
	return c.withFile(func() error { return c.compactLocked(today) })
}

// compactLocked rewrites the file with its records that are not stale,
// with the file lock held, and replaces it atomically (a temporary file
// in the same folder, synced, renamed over it). The days are read from
// the file, not from memory, as the other process may have used a vector
// since; and as it appends only under the lock, nothing it added is left
// out. It sees the new file at its next write or Embed.
func (c *cache) compactLocked(today uint32) error {
	if err := c.syncLocked(); err != nil || c.f == nil {
		return err
	}
	_, start, err := c.readHeader(c.f)
	if err != nil {
		return fmt.Errorf("compact embedding cache: %w", err)
	}
	size := c.recordSize()
	buf := c.header(c.dim)
	kept := map[key]slot{}
	total := 0
	r := bufio.NewReaderSize(io.NewSectionReader(c.f, start, c.end-start), 1<<16)
	rec := make([]byte, size)
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			break
		}
		total++
		var k key
		copy(k[:], rec)
		s := slot{off: int64(len(buf)), day: binary.LittleEndian.Uint32(rec[len(k):])}
		if _, dup := kept[k]; dup || isStale(s.day, today) {
			continue
		}
		kept[k] = s
		buf = append(buf, rec...)
	}
	if !worthCompacting(total, total-len(kept)) {
		return nil
	}
	err = durable.WriteFileAtomicIf(c.path, buf, c.beforeReplace)
	if err != nil {
		err = fmt.Errorf("compact embedding cache: %w", err)
	}
	return c.afterReplace(err, kept, int64(len(buf)))
}

// replaceNeedsClose: Windows does not replace a file that is open (Go
// opens files without FILE_SHARE_DELETE), so the cache's own file is
// closed for the rename, readers waiting; one another process holds open
// makes the compaction fail, and it is tried again the next day.
const replaceNeedsClose = runtime.GOOS == "windows"

// beforeReplace runs right before the compacted file is renamed over the
// old one, with wmu and the file lock held.
func (c *cache) beforeReplace() error {
	if replaceNeedsClose {
		c.mu.Lock() // until afterReplace
		c.replacing = true
		_ = c.f.Close()
	}
	return nil
}

// afterReplace opens the file at the path after a compaction: the new one
// with the kept records (err nil), or else the old one again if
// beforeReplace closed it. It returns err.
func (c *cache) afterReplace(err error, kept map[key]slot, end int64) error {
	if !c.replacing && err != nil {
		return err // the old file is still open, and still at the path
	}
	f, oerr := os.OpenFile(c.path, os.O_RDWR, 0)
	var fi fs.FileInfo
	if oerr == nil {
		if fi, oerr = f.Stat(); oerr != nil {
			_ = f.Close()
		}
	}
	if !c.replacing {
		if oerr != nil { // the next write or Embed opens it
			return fmt.Errorf("open the compacted embedding cache: %w", oerr)
		}
		c.swap(f, fi, end, c.dim, kept)
		return nil
	}
	defer c.mu.Unlock()
	c.replacing = false
	switch {
	case oerr != nil:
		c.f, c.id, c.end, c.dim, c.at = nil, nil, 0, 0, map[key]slot{}
		return errors.Join(err, fmt.Errorf("open the embedding cache: %w", oerr))
	case err != nil: // the old file, whose records are as they were
		c.f, c.id = f, fi
		return err
	}
	c.f, c.id, c.end, c.at = f, fi, end, kept
	return nil
}

// removeUnused removes the cache files in dir, but keep, that were not
// written to for unusedAfter: those of models no longer chosen. A model in
// use stamps its vectors each day it is used, which writes its file. A
// process that has one open and uses it again finds it gone and embeds
// anew.
func removeUnused(dir, keep string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		path := filepath.Join(dir, de.Name())
		if path == keep || !isCacheName(de.Name()) {
			continue
		}
		if fi, err := de.Info(); err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < unusedAfter {
			continue
		}
		if err := os.Remove(path); err == nil {
			_ = os.Remove(lockPath(path))
		}
	}
}

// isCacheName reports whether name is that of a cache file (cachePath).
func isCacheName(name string) bool {
	h, ok := strings.CutSuffix(name, cacheExt)
	if !ok || len(h) != 32 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
