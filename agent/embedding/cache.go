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

const cacheFormat = "engram-embeddings/1"

// cache is one model's vectors on disk: a header line, then records of a
// text's key followed by its vector (Dim little-endian float32s). Only the
// keys and the offsets of their vectors are kept in memory; a vector is
// read from the file when it is asked for. Records are appended one batch
// per write (O_APPEND, so that two processes, the app and engramctl memory
// reindex, may add to the same file); a record cut short (a crash while
// writing) is dropped when the file is opened. It is safe for concurrent
// use.
type cache struct {
	path  string
	model string

	mu  sync.Mutex
	f   *os.File // nil until the first record, for a new file
	dim int      // 0 until known
	at  map[key]int64
}

// cachePath is the file of model's vectors in dir: the model's name is
// hashed, so any name makes a valid file name and no two models share one.
func cachePath(dir, model string) string {
	h := sha256.Sum256([]byte(model))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".vec")
}

// openCache opens (or, at the first put, creates) model's cache in dir. A
// file of another model or format, or one that does not parse, is started
// over: it is only a cache.
func openCache(dir, model string) (*cache, error) {
	c := &cache{path: cachePath(dir, model), model: model, at: map[key]int64{}}
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open embedding cache: %w", err)
	}
	if err := c.load(f); err != nil {
		_ = f.Close()
		return c, c.resetLocked(0)
	}
	c.f = f
	return c, nil
}

// load reads the header and the keys of f's records, and cuts a last
// record that is incomplete.
func (c *cache) load(f *os.File) error {
	r := bufio.NewReaderSize(f, 1<<16)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	var h cacheHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Format != cacheFormat || h.Model != c.model || h.Dim <= 0 {
		return errors.New("not this model's cache")
	}
	c.dim = h.Dim
	off := int64(len(line))
	rec := make([]byte, c.recordSize())
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			break
		}
		var k key
		copy(k[:], rec)
		c.at[k] = off + int64(len(k))
		off += int64(len(rec))
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > off {
		if err := f.Truncate(off); err != nil {
			return fmt.Errorf("cut the last record: %w", err)
		}
	}
	return nil
}

func (c *cache) recordSize() int { return sha256.Size + 4*c.dim }

// Dim is the dimension of the cached vectors, 0 when none is cached.
func (c *cache) Dim() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dim
}

// get returns the vector of k, if cached.
func (c *cache) get(k key) ([]float32, bool, error) {
	c.mu.Lock()
	off, ok := c.at[k]
	f, dim := c.f, c.dim
	c.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	buf := make([]byte, 4*dim)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, false, fmt.Errorf("read embedding cache: %w", err)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return v, true, nil
}

// put appends the vectors of keys, all of the cache's dimension (the
// first put of a new cache sets it).
func (c *cache) put(keys []key, vecs [][]float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		if err := c.createLocked(len(vecs[0])); err != nil {
			return err
		}
	}
	buf := make([]byte, 0, len(keys)*c.recordSize())
	for i, k := range keys {
		if len(vecs[i]) != c.dim {
			return fmt.Errorf("a vector of %d values in a cache of %d", len(vecs[i]), c.dim)
		}
		buf = append(buf, k[:]...)
		for _, x := range vecs[i] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	if _, err := c.f.Write(buf); err != nil {
		return fmt.Errorf("write embedding cache: %w", err)
	}
	end, err := c.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("write embedding cache: %w", err)
	}
	start := end - int64(len(buf)) // another process may have appended since
	for i, k := range keys {
		c.at[k] = start + int64(i*c.recordSize()+sha256.Size)
	}
	return nil
}

// reset empties the cache; the next put sets the dimension anew.
func (c *cache) reset() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resetLocked(0)
}

// resetLocked empties the cache and, with dim > 0, writes a new header.
// With dim 0 the file is removed.
func (c *cache) resetLocked(dim int) error {
	if c.f != nil {
		_ = c.f.Close()
		c.f = nil
	}
	c.at, c.dim = map[key]int64{}, 0
	if dim == 0 {
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("reset embedding cache: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("create embedding cache: %w", err)
	}
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("create embedding cache: %w", err)
	}
	return c.writeHeader(f, dim)
}

// createLocked opens the cache file for a first put: the file another
// process created meanwhile, or else a new one.
func (c *cache) createLocked(dim int) error {
	if f, err := os.OpenFile(c.path, os.O_RDWR|os.O_APPEND, 0); err == nil {
		if err := c.load(f); err == nil && c.dim == dim {
			c.f = f
			return nil
		}
		_ = f.Close()
		return c.resetLocked(dim)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("create embedding cache: %w", err)
	}
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return c.resetLocked(dim) // created meanwhile, but not usable
	}
	return c.writeHeader(f, dim)
}

// writeHeader starts the new file f of vectors of dim values.
func (c *cache) writeHeader(f *os.File, dim int) error {
	h, _ := json.Marshal(cacheHeader{Format: cacheFormat, Model: c.model, Dim: dim})
	if _, err := f.Write(append(h, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("create embedding cache: %w", err)
	}
	c.f, c.dim = f, dim
	return nil
}

// Close closes the file.
func (c *cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}
