package dense

import "slices"

// A search compares the query with about scanRows chunk vectors, whatever
// the size of the set, so its cost stays near a hundred microseconds: a
// set of up to clusterRows rows is scanned whole; a larger one is split
// into nClusters clusters (an inverted file), and a search scans the
// clusters nearest the query until it has seen scanRows rows.
const (
	scanRows    = 512
	clusterRows = 2 * scanRows
	nClusters   = 128
)

// clusters is the inverted file of a large set: centroids, sampled from
// the rows when the set first reached clusterRows, and the rows nearest
// each. Later rows join their nearest centroid as they are put; the
// centroids are not retrained, as a store's topics drift slowly.
type clusters struct {
	cent  []float32 // nClusters × dim, unit vectors
	norm  []float32 // by cluster: 1/|centroid − mean|, as of the set's last refresh
	lists [][]int32 // rows, by cluster
	of    []int32   // by row: its cluster
	at    []int32   // by row: its index in lists[of]
}

// buildClusters samples the centroids evenly from the rows and assigns
// every row.
func (s *Set) buildClusters() {
	n := len(s.owner)
	cl := &clusters{cent: make([]float32, nClusters*s.dim), lists: make([][]int32, nClusters)}
	for c := range nClusters {
		r := int32(c * n / nClusters)
		v := cl.cent[c*s.dim : (c+1)*s.dim]
		for d, x := range s.vecs[int(r)*s.dim : int(r+1)*s.dim] {
			v[d] = float32(x)
		}
		unit(v)
	}
	s.cl = cl
	for r := range n {
		cl.add(s, int32(r))
	}
	cl.refresh(s)
}

// refresh recomputes what probe needs of the set's mean.
func (cl *clusters) refresh(s *Set) {
	cl.norm = cl.norm[:0]
	for c := range nClusters {
		rest := 1 - 2*dotF(cl.cent[c*s.dim:(c+1)*s.dim], s.mean) + s.meanSq
		cl.norm = append(cl.norm, 1/sqrt32(max(rest, 1e-6)))
	}
}

// nearest is the cluster whose centroid is nearest row r.
func (cl *clusters) nearest(s *Set, r int32) int32 {
	v := s.vecs[int(r)*s.dim : int(r+1)*s.dim]
	best, bestDot := int32(0), float32(0)
	for c := range nClusters {
		d := dot8(cl.cent[c*s.dim:(c+1)*s.dim], v)
		if c == 0 || d > bestDot {
			best, bestDot = int32(c), d
		}
	}
	return best
}

// add files the new row r (the last) under its nearest cluster.
func (cl *clusters) add(s *Set, r int32) {
	c := cl.nearest(s, r)
	cl.of = append(cl.of, c)
	cl.at = append(cl.at, int32(len(cl.lists[c])))
	cl.lists[c] = append(cl.lists[c], r)
}

// remove takes row r out of its cluster.
func (cl *clusters) remove(r int32) {
	c, i := cl.of[r], cl.at[r]
	list := cl.lists[c]
	moved := list[len(list)-1]
	list[i] = moved
	cl.at[moved] = i
	cl.lists[c] = list[:len(list)-1]
}

// move records that row from is now row to (from is the last row, about
// to be dropped).
func (cl *clusters) move(from, to int32) {
	c, i := cl.of[from], cl.at[from]
	cl.lists[c][i] = to
	cl.of[to], cl.at[to] = c, i
}

// truncate drops the bookkeeping of rows n and above.
func (cl *clusters) truncate(n int) {
	cl.of, cl.at = cl.of[:n], cl.at[:n]
}

// probe calls fn for scanRows rows of the clusters nearest the query,
// nearest first (a cluster larger than that is cut short).
func (cl *clusters) probe(p *Query, fn func(r int32)) {
	s := p.s
	type near struct {
		c   int
		cos float32
	}
	order := make([]near, nClusters)
	for c := range nClusters {
		// The cosine of the query and the centroid, both less the mean.
		order[c] = near{c, (dotF(p.q, cl.cent[c*s.dim:(c+1)*s.dim]) - p.qm) * cl.norm[c]}
	}
	slices.SortFunc(order, func(a, b near) int {
		// Nearest first; cosines are never NaN, so plain comparisons do.
		switch {
		case a.cos > b.cos:
			return -1
		case a.cos < b.cos:
			return 1
		}
		return a.c - b.c
	})
	seen := 0
	for _, o := range order {
		for _, r := range cl.lists[o.c] {
			if seen == scanRows {
				return
			}
			fn(r)
			seen++
		}
	}
}

// gather renumbers the rows cluster by cluster, each cluster's in the order
// of its list, so that a search reads the rows of the clusters it probes
// one after another in memory rather than scattered over the whole set
// (at a hundred thousand rows, a cache miss each). Rows put later join the
// end until the next refresh gathers them too.
func (s *Set) gather() {
	cl := s.cl
	n := len(s.owner)
	renum := make([]int32, n) // by old row: its new number
	next := int32(0)
	for c, list := range cl.lists {
		for i, r := range list {
			renum[r] = next
			cl.of[next], cl.at[next] = int32(c), int32(i)
			list[i] = next
			next++
		}
	}
	owner, chunk := make([]string, n), make([]int32, n)
	scale, norm2, dotM, den := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	vecs := make([]int8, n*s.dim)
	for r, to := range renum {
		owner[to], chunk[to], scale[to] = s.owner[r], s.chunk[r], s.scale[r]
		norm2[to], dotM[to], den[to] = s.norm2[r], s.dotM[r], s.den[r]
		copy(vecs[int(to)*s.dim:int(to+1)*s.dim], s.vecs[r*s.dim:(r+1)*s.dim])
	}
	s.owner, s.chunk, s.scale, s.norm2, s.dotM, s.den, s.vecs = owner, chunk, scale, norm2, dotM, den, vecs
	for _, rows := range s.rows {
		for i, r := range rows {
			rows[i] = renum[r]
		}
	}
}
