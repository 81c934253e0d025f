package embedding

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"engram/memory/durable"
)

// key is the content hash of a text: sha256 of its bytes. The model is
// not in the key because each model has its own cache file.
type key [sha256.Size]byte

// cacheHeader is the first line of a cache file, JSON; the records follow.
type cacheHeader struct {
	Format string `json:"format"`
	Model  string `json:"model"`
	Dim    int    `json:"dim"`
}

// cacheFormat names the layout of the records. Version 1 had no day
// stamp; its files are started over.
const cacheFormat = "engram-embeddings/2"

// stampSize is the size of a record's day stamp, after its key.
const stampSize = 4

// slot is where a key's record starts in the file, and the day it was
// last used as the file says (or as this process last wrote it).
type slot struct {
	off int64
	day uint32
}

// cache is one model's vectors on disk: a header line, then records of a
// text's key, the day it was last used (days since 1970, little-endian
// uint32) and its vector (Dim little-endian float32s). Only the keys, the
// offsets of their records and their days are kept in memory; a vector
// is read from the file when it is asked for.
//
// Two processes (the app and engramctl) may use the same file: every
// write (an append, a day stamp, a compaction, a reset) happens under the
// lock file beside it, after checking that the open file is still the one
// at the path and reading what the other process appended since. A
// compaction replaces the file atomically (compact.go); a process that
// still has the old one open keeps reading its vectors from it (they are
// the same) until its next Embed or write notices and reopens. A record
// cut short (a crash while writing) is dropped when it is found. It is
// safe for concurrent use.
type cache struct {
	path  string
	model string
	now   func() time.Time
	lock  *durable.Locker

	// wmu serialises this process's writers: the file lock does not
	// exclude two goroutines of one process. It is taken before the file
	// lock and before mu; f, id, end, dim and at change only with it held
	// (and mu), so a writer reads them without mu.
	wmu sync.Mutex

	mu      sync.RWMutex // held by readers across ReadAt, so f is not closed under them
	f       *os.File     // nil while there is no file
	id      fs.FileInfo  // f's identity, to notice a replaced file
	end     int64        // the offset after the last whole record of f
	dim     int          // 0 until known
	at      map[key]slot
	checked uint32 // the day compaction was last considered
	closed  bool

	replacing bool // with wmu: beforeReplace closed f and holds mu

	bg sync.WaitGroup // a compaction in the background
}

// cachePath is the file of model's vectors in dir: the model's name is
// hashed, so any name makes a valid file name and no two models share one.
func cachePath(dir, model string) string {
	h := sha256.Sum256([]byte(model))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+cacheExt)
}

const cacheExt = ".vec"

// lockPath is the lock file of the cache file path.
func lockPath(path string) string { return path + ".lock" }

// dayOf is t's day number: whole days since 1970 in UTC.
func dayOf(t time.Time) uint32 { return uint32(t.Unix() / 86400) }

// openCache opens model's cache in dir (created at the first put), then
// removes the cache files of models unused for long and compacts this one
// if most of it is stale (compact.go). A file of another model or format,
// or one that does not parse, is started over: it is only a cache.
func openCache(dir, model string, now func() time.Time) (*cache, error) {
	c := &cache{path: cachePath(dir, model), model: model, now: now, at: map[key]slot{}}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	l, err := durable.OpenLock(lockPath(c.path))
	if err != nil {
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	c.lock = l
	if err := c.withFile(c.syncLocked); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	durable.RemoveStaleTemps(c.path)
	removeUnused(dir, c.path, now())
	_ = c.compactIfStale() // a failed compaction leaves a cache that works
	return c, nil
}

// withFile runs fn holding this process's writer mutex and the file lock.
func (c *cache) withFile(fn func() error) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.lock.Lock(); err != nil {
		return err
	}
	defer func() { _ = c.lock.Unlock() }()
	return fn()
}

// syncLocked makes the cache see the file at its path, with the file lock
// held: the records another process appended since, or all of a file
// that replaced the open one, or none when the file is gone. A file that
// is not this model's is removed; a record cut short is cut off.
func (c *cache) syncLocked() error {
	fi, err := os.Stat(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		c.swap(nil, nil, 0, 0, map[key]slot{})
		return nil
	}
	if err != nil {
		return fmt.Errorf("read embedding cache: %w", err)
	}
	if c.f != nil && os.SameFile(fi, c.id) && fi.Size() >= c.end { // else cut by hand: read anew
		if fi.Size() == c.end {
			return nil
		}
		found, end, err := c.scanLocked(c.f, c.dim, c.end, fi.Size())
		if err != nil {
			return err
		}
		c.mu.Lock()
		for k, s := range found {
			c.at[k] = s
		}
		c.end = end
		c.mu.Unlock()
		return nil
	}
	f, err := os.OpenFile(c.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("read embedding cache: %w", err)
	}
	if fi, err = f.Stat(); err != nil {
		_ = f.Close()
		return fmt.Errorf("read embedding cache: %w", err)
	}
	dim, start, err := c.readHeader(f)
	if err != nil {
		_ = f.Close()
		c.swap(nil, nil, 0, 0, map[key]slot{})
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("start the embedding cache over: %w", err)
		}
		return nil
	}
	found, end, err := c.scanLocked(f, dim, start, fi.Size())
	if err != nil {
		_ = f.Close()
		return err
	}
	c.swap(f, fi, end, dim, found)
	return nil
}

// readHeader reads f's header: the dimension, and where the records start.
func (c *cache) readHeader(f *os.File) (dim int, end int64, err error) {
	line, err := bufio.NewReader(io.NewSectionReader(f, 0, 4096)).ReadBytes('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("read header: %w", err)
	}
	var h cacheHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Format != cacheFormat || h.Model != c.model || h.Dim <= 0 {
		return 0, 0, errors.New("not this model's cache")
	}
	return h.Dim, int64(len(line)), nil
}

// scanLocked reads the keys and days of f's records of dim values from
// offset from to size, with the file lock held, and cuts a last record
// that is incomplete. end is the offset after the last whole record.
func (c *cache) scanLocked(f *os.File, dim int, from, size int64) (found map[key]slot, end int64, err error) {
	found, end = map[key]slot{}, from
	size64 := int64(recordSize(dim))
	rec := make([]byte, sha256.Size+stampSize)
	r := bufio.NewReaderSize(io.NewSectionReader(f, from, size-from), 1<<16)
	for end+size64 <= size {
		if _, err := io.ReadFull(r, rec); err != nil {
			break
		}
		if _, err := r.Discard(int(size64) - len(rec)); err != nil {
			break
		}
		var k key
		copy(k[:], rec)
		found[k] = slot{off: end, day: binary.LittleEndian.Uint32(rec[sha256.Size:])}
		end += size64
	}
	if size > end {
		if err := f.Truncate(end); err != nil {
			return nil, 0, fmt.Errorf("cut the last record of the embedding cache: %w", err)
		}
	}
	return found, end, nil
}

// swap makes f (nil: none) the cache's file, closing the one it replaces.
func (c *cache) swap(f *os.File, id fs.FileInfo, end int64, dim int, at map[key]slot) {
	c.mu.Lock()
	old := c.f
	c.f, c.id, c.end, c.dim, c.at = f, id, end, dim, at
	c.mu.Unlock()
	if old != nil && old != f {
		_ = old.Close()
	}
}

func (c *cache) recordSize() int { return recordSize(c.dim) }

// recordSize is the size of a record of a vector of dim values.
func recordSize(dim int) int { return sha256.Size + stampSize + 4*dim }

// Dim is the dimension of the cached vectors, 0 when none is cached.
func (c *cache) Dim() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.dim
}

// refresh makes the cache see what another process wrote since: its
// records, or the file that replaced this one. It is cheap when nothing
// changed (one stat).
func (c *cache) refresh() error {
	fi, err := os.Stat(c.path)
	c.mu.RLock()
	same := c.f == nil && errors.Is(err, fs.ErrNotExist) ||
		c.f != nil && err == nil && os.SameFile(fi, c.id) && fi.Size() == c.end
	c.mu.RUnlock()
	if same {
		return nil
	}
	return c.withFile(c.syncLocked)
}

// get returns the vector of k, if cached.
func (c *cache) get(k key) ([]float32, bool, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.at[k]
	if !ok || c.f == nil {
		return nil, false, nil
	}
	buf := make([]byte, 4*c.dim)
	if _, err := c.f.ReadAt(buf, s.off+sha256.Size+stampSize); err != nil {
		return nil, false, fmt.Errorf("read embedding cache: %w", err)
	}
	v := make([]float32, c.dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return v, true, nil
}

// touch stamps today on the records of keys not stamped today yet, so
// that vectors in use are never taken for stale. It is best effort: a
// stamp that fails to be written only makes its vector look older.
func (c *cache) touch(keys []key) {
	today := dayOf(c.now())
	c.mu.RLock()
	var old []key
	for _, k := range keys {
		if s, ok := c.at[k]; ok && s.day < today {
			old = append(old, k)
		}
	}
	c.mu.RUnlock()
	if len(old) == 0 {
		return
	}
	_ = c.withFile(func() error {
		if err := c.syncLocked(); err != nil || c.f == nil {
			return err
		}
		var stamp [stampSize]byte
		binary.LittleEndian.PutUint32(stamp[:], today)
		var done []key
		for _, k := range old {
			s, ok := c.at[k]           // c.at changes only with wmu held
			if !ok || s.day >= today { // compacted away meanwhile, or stamped by the other process
				continue
			}
			if _, err := c.f.WriteAt(stamp[:], s.off+sha256.Size); err != nil {
				break
			}
			done = append(done, k)
		}
		c.mu.Lock()
		for _, k := range done {
			c.at[k] = slot{off: c.at[k].off, day: today}
		}
		c.mu.Unlock()
		return nil
	})
}

// put appends the vectors of keys not cached yet, stamped today, all of
// the cache's dimension. The first put of a new cache sets it; vectors of
// another dimension than the file's start the file over.
func (c *cache) put(keys []key, vecs [][]float32) error {
	today := dayOf(c.now())
	return c.withFile(func() error {
		if err := c.syncLocked(); err != nil {
			return fmt.Errorf("write embedding cache: %w", err)
		}
		if c.f == nil || c.dim != len(vecs[0]) {
			if err := c.createLocked(len(vecs[0])); err != nil {
				return err
			}
		}
		buf := make([]byte, 0, len(keys)*c.recordSize())
		var added []key
		seen := map[key]bool{}
		for i, k := range keys {
			if len(vecs[i]) != c.dim {
				return fmt.Errorf("a vector of %d values in a cache of %d", len(vecs[i]), c.dim)
			}
			if _, ok := c.at[k]; ok || seen[k] { // the other process cached it meanwhile
				continue
			}
			seen[k] = true
			added = append(added, k)
			buf = appendRecord(buf, k, today, vecs[i])
		}
		if _, err := c.f.WriteAt(buf, c.end); err != nil {
			return fmt.Errorf("write embedding cache: %w", err)
		}
		c.mu.Lock()
		for i, k := range added {
			c.at[k] = slot{off: c.end + int64(i*c.recordSize()), day: today}
		}
		c.end += int64(len(buf))
		c.mu.Unlock()
		return nil
	})
}

// appendRecord appends the record of k, stamped day, to buf.
func appendRecord(buf []byte, k key, day uint32, vec []float32) []byte {
	buf = append(buf, k[:]...)
	buf = binary.LittleEndian.AppendUint32(buf, day)
	for _, x := range vec {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	return buf
}

// header is the first line of a file of vectors of dim values.
func (c *cache) header(dim int) []byte {
	h, _ := json.Marshal(cacheHeader{Format: cacheFormat, Model: c.model, Dim: dim})
	return append(h, '\n')
}

// createLocked starts the file over, empty, for vectors of dim values,
// with the file lock held.
func (c *cache) createLocked(dim int) error {
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create embedding cache: %w", err)
	}
	h := c.header(dim)
	fi, err := f.Stat()
	if err == nil {
		_, err = f.Write(h)
	}
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("create embedding cache: %w", err)
	}
	c.swap(f, fi, int64(len(h)), dim, map[key]slot{})
	return nil
}

// reset empties the cache and removes its file; the next put sets the
// dimension anew.
func (c *cache) reset() error {
	return c.withFile(func() error {
		c.swap(nil, nil, 0, 0, map[key]slot{})
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("reset embedding cache: %w", err)
		}
		return nil
	})
}

// Close waits for a compaction in the background and closes the files.
func (c *cache) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.bg.Wait()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	f := c.f
	c.f, c.at = nil, map[key]slot{}
	c.mu.Unlock()
	var err error
	if f != nil {
		err = f.Close()
	}
	return errors.Join(err, c.lock.Close())
}
