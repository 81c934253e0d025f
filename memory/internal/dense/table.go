package dense

import (
	_ "embed"
	"fmt"
	"math"
	"strings"
	"sync"
)

//go:embed vectors.bin
var embedded string

// table is the parsed view of vectors.bin; its sections are slices of the
// embedded string, read in place.
type table struct {
	dim    int
	n      int
	recs   string // n × u32 (blob offset << 8 | length), sorted by text
	freqs  string // n × f32
	scales string // n × f32
	vecs   string // n × dim int8
	blob   string
}

const magic = "ENGVEC1\n"

var (
	once    sync.Once
	loaded  *table
	loadErr error
)

// Load checks the embedded table, once; later calls return the first
// result. A damaged table loads as an empty one (no word has a vector).
func Load() error {
	once.Do(func() {
		loaded, loadErr = parse(embedded)
		if loadErr != nil {
			loaded = &table{dim: Dim}
			loadErr = fmt.Errorf("load word vectors: %w", loadErr)
		}
	})
	return loadErr
}

func get() *table {
	Load()
	return loaded
}

// Dim is the number of dimensions of the built-in vectors.
const Dim = 100

func u32(s string, off int) uint32 {
	_ = s[off+3]
	return uint32(s[off]) | uint32(s[off+1])<<8 | uint32(s[off+2])<<16 | uint32(s[off+3])<<24
}

func parse(s string) (*table, error) {
	if !strings.HasPrefix(s, magic) || len(s) < len(magic)+12 {
		return nil, fmt.Errorf("not a vector table")
	}
	h := len(magic)
	dim, n, blobLen := int(u32(s, h)), int(u32(s, h+4)), int(u32(s, h+8))
	if dim != Dim {
		return nil, fmt.Errorf("%d dimensions, want %d", dim, Dim)
	}
	t := &table{dim: dim, n: n}
	off := h + 12
	take := func(size int) (string, error) {
		if size < 0 || off+size > len(s) {
			return "", fmt.Errorf("truncated at byte %d", off)
		}
		part := s[off : off+size]
		off += size
		return part, nil
	}
	var err error
	for _, sec := range []struct {
		dst  *string
		size int
	}{{&t.recs, 4 * n}, {&t.freqs, 4 * n}, {&t.scales, 4 * n}, {&t.vecs, n * dim}, {&t.blob, blobLen}} {
		if *sec.dst, err = take(sec.size); err != nil {
			return nil, err
		}
	}
	if off != len(s) {
		return nil, fmt.Errorf("%d bytes after the table", len(s)-off)
	}
	prev := ""
	for i := range n {
		r := u32(t.recs, 4*i)
		o, l := int(r>>8), int(r&0xff)
		if o+l > len(t.blob) {
			return nil, fmt.Errorf("term %d out of the blob", i)
		}
		w := t.blob[o : o+l]
		if i > 0 && w <= prev {
			return nil, fmt.Errorf("terms not sorted at %d (%q after %q)", i, w, prev)
		}
		prev = w
	}
	return t, nil
}

// text is the i-th term.
func (t *table) text(i int) string {
	r := u32(t.recs, 4*i)
	o := int(r >> 8)
	return t.blob[o : o+int(r&0xff)]
}

// find returns the index of term w, or -1.
func (t *table) find(w string) int {
	lo, hi := 0, t.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.text(m) < w {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < t.n && t.text(lo) == w {
		return lo
	}
	return -1
}

// freq is term i's estimated share of running text.
func (t *table) freq(i int) float32 { return math.Float32frombits(u32(t.freqs, 4*i)) }

// addTo adds w × term i's unit vector to acc.
func (t *table) addTo(acc []float32, i int, w float32) {
	w *= math.Float32frombits(u32(t.scales, 4*i))
	v := t.vecs[i*t.dim : (i+1)*t.dim]
	for d := range acc[:len(v)] {
		acc[d] += w * float32(int8(v[d]))
	}
}

// Has reports whether the English index term w has a vector.
func Has(w string) bool { return get().find(w) >= 0 }
