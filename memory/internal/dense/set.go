package dense

import (
	"math"
	"slices"
)

// Set holds the vectors of the chunks of many entries, quantised to int8,
// and finds the chunks nearest a query. What all the set's vectors share,
// their mean, is subtracted from the query and from every chunk before they
// are compared, so what every memory has in common (a speaker's name, the
// store's topic, the pull of common words) does not make them all alike.
//
// A Set is not safe for concurrent use: the caller locks (searches may run
// in parallel with each other, not with Put, Delete or Refresh).
type Set struct {
	dim   int
	owner []string  // entry id, by row
	chunk []int32   // chunk of the entry, by row
	vecs  []int8    // rows × dim
	scale []float32 // by row
	norm2 []float32 // by row: the squared length of the quantised vector
	dotM  []float32 // by row: the vector's dot product with mean
	den   []float32 // by row: |v−mean| (see cos), 0 for a row at the mean
	rows  map[string][]int32
	sum   []float64 // of the rows' vectors
	// mean is the rows' mean as of the last Refresh, and dotM is computed
	// against it; it is refreshed when the rows changed by more than a
	// tenth since.
	mean    []float32
	meanSq  float32   // mean·mean
	changed int       // rows put or deleted since the last refresh
	atRows  int       // rows at the last refresh
	fresh   bool      // mean was computed at least once
	cl      *clusters // nil while the set is small enough to scan whole
}

// NewSet returns an empty set of vectors of dim dimensions.
func NewSet(dim int) *Set {
	return &Set{dim: dim, rows: make(map[string][]int32), sum: make([]float64, dim), mean: make([]float32, dim)}
}

// Dim is the number of dimensions of the set's vectors.
func (s *Set) Dim() int { return s.dim }

// Len is the number of chunk vectors.
func (s *Set) Len() int { return len(s.owner) }

// Has reports whether the set holds vectors of entry id.
func (s *Set) Has(id string) bool { _, ok := s.rows[id]; return ok }

// Put replaces the vectors of entry id with vecs, one per chunk (a nil one
// for a chunk with no vector, or one of the wrong length).
func (s *Set) Put(id string, vecs [][]float32) {
	s.Delete(id)
	var rows []int32
	for c, v := range vecs {
		if len(v) != s.dim {
			continue
		}
		r := int32(len(s.owner))
		m := float32(0)
		for _, x := range v {
			m = max(m, float32(math.Abs(float64(x))))
		}
		if m == 0 {
			continue
		}
		sc := m / 127
		for _, x := range v {
			q := int8(math.Round(float64(x / sc)))
			s.vecs = append(s.vecs, q)
		}
		s.owner = append(s.owner, id)
		s.chunk = append(s.chunk, int32(c))
		s.scale = append(s.scale, sc)
		s.norm2 = append(s.norm2, sc*sc*norm8(s.vecs[int(r)*s.dim:int(r+1)*s.dim]))
		s.dotM = append(s.dotM, 0)
		s.den = append(s.den, 0)
		s.addSum(r, 1)
		s.setMean(r)
		rows = append(rows, r)
		if s.cl != nil {
			s.cl.add(s, r)
		}
	}
	if s.cl == nil && len(s.owner) >= clusterRows {
		s.buildClusters()
	}
	if rows != nil {
		s.rows[id] = rows
	}
	s.changed += len(rows)
}

// Delete removes the vectors of entry id; removing an id the set lacks does
// nothing.
func (s *Set) Delete(id string) {
	rows := s.rows[id]
	if rows == nil {
		return
	}
	delete(s.rows, id)
	// Remove from the highest row down, moving the last row into each hole.
	slices.Sort(rows)
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		s.addSum(r, -1)
		if s.cl != nil {
			s.cl.remove(r)
		}
		last := int32(len(s.owner) - 1)
		if r != last {
			s.move(last, r)
		}
		if s.cl != nil {
			s.cl.truncate(int(last))
		}
		s.owner = s.owner[:last]
		s.chunk = s.chunk[:last]
		s.scale = s.scale[:last]
		s.norm2 = s.norm2[:last]
		s.dotM = s.dotM[:last]
		s.den = s.den[:last]
		s.vecs = s.vecs[:int(last)*s.dim]
	}
	s.changed += len(rows)
}

// move copies row from into row to and repoints its owner's list.
func (s *Set) move(from, to int32) {
	id := s.owner[from]
	s.owner[to], s.chunk[to], s.scale[to] = id, s.chunk[from], s.scale[from]
	s.norm2[to], s.dotM[to], s.den[to] = s.norm2[from], s.dotM[from], s.den[from]
	copy(s.vecs[int(to)*s.dim:int(to+1)*s.dim], s.vecs[int(from)*s.dim:int(from+1)*s.dim])
	if s.cl != nil {
		s.cl.move(from, to)
	}
	for i, r := range s.rows[id] {
		if r == from {
			s.rows[id][i] = to
		}
	}
}

// addSum adds sign × row r's vector to the sum of the rows.
func (s *Set) addSum(r int32, sign float64) {
	v := s.vecs[int(r)*s.dim : int(r+1)*s.dim]
	f := sign * float64(s.scale[r])
	for d, x := range v {
		s.sum[d] += f * float64(x)
	}
}

// setMean computes what cos needs of row r and the current mean: their
// dot product, and the length of the row less the mean, |v−m|, from
// |v−m|² = |v|² − 2v·m + m·m.
func (s *Set) setMean(r int32) {
	s.dotM[r] = s.scale[r] * dot8(s.mean, s.vecs[int(r)*s.dim:int(r+1)*s.dim])
	s.den[r] = 0
	if rest := s.norm2[r] - 2*s.dotM[r] + s.meanSq; rest > 1e-6 {
		s.den[r] = sqrt32(rest)
	}
}

// Refresh recomputes the mean if the rows changed by more than a tenth
// since it was last computed. Searches use the mean as of the last
// refresh; the caller calls Refresh under its write lock (after a batch of
// Puts), never during a search.
func (s *Set) Refresh() {
	if s.fresh && s.changed*10 <= s.atRows {
		return
	}
	clear(s.mean)
	if n := len(s.owner); n > 0 {
		for d, x := range s.sum {
			s.mean[d] = float32(x / float64(n))
		}
	}
	s.meanSq = dotF(s.mean, s.mean)
	for r := range s.owner {
		s.setMean(int32(r))
	}
	if s.cl != nil {
		s.cl.refresh(s)
		s.gather()
	}
	s.changed, s.atRows, s.fresh = 0, len(s.owner), true
}

// Match is an entry near the query: its best chunk and the cosine there.
type Match struct {
	ID    string
	Chunk int
	Cos   float32
}

// Query is a query vector prepared for one search of a set.
type Query struct {
	s  *Set
	q  []float32 // the query less the mean, unit
	qi []int32   // q quantised: q ≈ qi × qs
	qs float32
	qm float32 // q·mean
	ok bool
	// byRow holds the cosine of every row once Top has scanned the whole
	// set, for Best to read.
	byRow []float32
}

// Prepare readies q (Dim values of the set) for comparing with the set's
// chunks.
func (s *Set) Prepare(q []float32) *Query {
	p := &Query{s: s, q: make([]float32, s.dim)}
	if len(q) != s.dim {
		return p
	}
	for d, x := range q {
		p.q[d] = x - s.mean[d]
	}
	n := dotF(p.q, p.q)
	p.ok = n > 0
	if p.ok {
		inv := float32(1 / math.Sqrt(float64(n)))
		for d := range p.q {
			p.q[d] *= inv
		}
		p.qm = dotF(p.q, s.mean)
		m := float32(0)
		for _, x := range p.q {
			m = max(m, float32(math.Abs(float64(x))))
		}
		p.qs = m / 32767
		p.qi = make([]int32, s.dim)
		for d, x := range p.q {
			p.qi[d] = int32(math.Round(float64(x / p.qs)))
		}
	}
	return p
}

// cos is the cosine of the query and row r, both less the mean:
// (q'·(v−m)) / |v−m| with q' unit, q'·(v−m) = q'·v − q'·m.
func (p *Query) cos(r int32) float32 {
	s := p.s
	den := s.den[r]
	if den == 0 {
		return 0
	}
	v := s.vecs[int(r)*s.dim : int(r+1)*s.dim]
	return (s.scale[r]*p.qs*float32(dotI(p.qi, v)) - p.qm) / den
}

// Best returns the cosine of entry id's best chunk and that chunk; ok is
// false when the set holds no vector of id.
func (p *Query) Best(id string) (m Match, ok bool) {
	if !p.ok {
		return Match{}, false
	}
	for _, r := range p.s.rows[id] {
		var c float32
		if p.byRow != nil {
			c = p.byRow[r]
		} else {
			c = p.cos(r)
		}
		if !ok || c > m.Cos {
			m, ok = Match{ID: id, Chunk: int(p.s.chunk[r]), Cos: c}, true
		}
	}
	return m, ok
}

// Top returns the n entries nearest the query, best first, each by its best
// chunk. A large set is searched in the clusters nearest the query only
// (see scanRows), so an entry far from all of them may be missed.
func (p *Query) Top(n int) []Match {
	if !p.ok || n <= 0 {
		return nil
	}
	s := p.s
	var scored []rowCos
	if s.cl == nil {
		scored = make([]rowCos, len(s.owner))
		p.byRow = make([]float32, len(s.owner))
		for r := range s.owner {
			c := p.cos(int32(r))
			scored[r], p.byRow[r] = rowCos{int32(r), c}, c
		}
	} else {
		scored = make([]rowCos, 0, scanRows+scanRows/2)
		s.cl.probe(p, func(r int32) { scored = append(scored, rowCos{r, p.cos(r)}) })
	}
	// The best rows, then one match per entry; most entries are one chunk,
	// so twice n rows nearly always make n entries.
	for m := 2 * n; ; m *= 4 {
		best := bestRows(scored, m)
		out := make([]Match, 0, n)
		seen := make(map[string]bool, len(best))
		for _, rc := range best {
			id := s.owner[rc.r]
			if seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, Match{ID: id, Chunk: int(s.chunk[rc.r]), Cos: rc.cos})
			if len(out) == n {
				break
			}
		}
		if len(out) == n || m >= len(scored) {
			return out
		}
	}
}

// rowCos is a row and its cosine to the query.
type rowCos struct {
	r   int32
	cos float32
}

// worse orders rows: lower cosine first, then higher row.
func worse(a, b rowCos) bool { return a.cos < b.cos || a.cos == b.cos && a.r > b.r }

// bestRows returns the m best of rows, best first, by way of a min-heap of
// the best seen so far; rows is reordered.
func bestRows(rows []rowCos, m int) []rowCos {
	if m >= len(rows) {
		slices.SortFunc(rows, better)
		return rows
	}
	h := make([]rowCos, 0, m)
	for _, rc := range rows {
		if len(h) < m {
			h = append(h, rc)
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if !worse(h[i], h[parent]) {
					break
				}
				h[i], h[parent] = h[parent], h[i]
				i = parent
			}
			continue
		}
		if !worse(h[0], rc) {
			continue
		}
		h[0] = rc
		for i := 0; ; {
			l, r, least := 2*i+1, 2*i+2, i
			if l < m && worse(h[l], h[least]) {
				least = l
			}
			if r < m && worse(h[r], h[least]) {
				least = r
			}
			if least == i {
				break
			}
			h[i], h[least] = h[least], h[i]
			i = least
		}
	}
	slices.SortFunc(h, better)
	return h
}

// better orders rows best first: higher cosine, then lower row (cosines
// are never NaN, so plain comparisons do).
func better(a, b rowCos) int {
	switch {
	case worse(b, a):
		return -1
	case worse(a, b):
		return 1
	}
	return 0
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func dotF(a, b []float32) float32 {
	s := float32(0)
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func dot8(a []float32, v []int8) float32 {
	v = v[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * float32(v[i])
		s1 += a[i+1] * float32(v[i+1])
		s2 += a[i+2] * float32(v[i+2])
		s3 += a[i+3] * float32(v[i+3])
	}
	for ; i < len(a); i++ {
		s0 += a[i] * float32(v[i])
	}
	return s0 + s1 + s2 + s3
}

// dotI is the dot product of a quantised query and a row, in integers:
// 16-bit by 8-bit products summed over at most a few hundred dimensions fit
// 32 bits. Eight at a time, on slices cut as they go, so that the compiler
// checks no bound in the loop.
func dotI(a []int32, v []int8) int32 {
	v = v[:len(a)]
	var s0, s1, s2, s3 int32
	for len(a) >= 8 && len(v) >= 8 {
		s0 += a[0]*int32(v[0]) + a[4]*int32(v[4])
		s1 += a[1]*int32(v[1]) + a[5]*int32(v[5])
		s2 += a[2]*int32(v[2]) + a[6]*int32(v[6])
		s3 += a[3]*int32(v[3]) + a[7]*int32(v[7])
		a, v = a[8:], v[8:]
	}
	for i, x := range a {
		s0 += x * int32(v[i])
	}
	return s0 + s1 + s2 + s3
}

func norm8(v []int8) float32 {
	s := int32(0)
	for _, x := range v {
		s += int32(x) * int32(x)
	}
	return float32(s)
}
