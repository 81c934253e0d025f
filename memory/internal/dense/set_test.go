package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randVec(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for d := range v {
		v[d] = float32(r.NormFloat64()) + 0.5 // a shared offset, as real vectors have
	}
	unit(v)
	return v
}

// refCos is the cosine of q and v, both less mean, in float64.
func refCos(q, v, mean []float32) float64 {
	var dot, nq, nv float64
	for d := range q {
		a, b := float64(q[d]-mean[d]), float64(v[d]-mean[d])
		dot += a * b
		nq += a * a
		nv += b * b
	}
	return dot / math.Sqrt(nq*nv)
}

func TestSetMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := NewSet(Dim)
	vecs := map[string][][]float32{}
	for i := range 300 {
		id := fmt.Sprintf("e%03d", i)
		n := 1 + r.IntN(3)
		var vs [][]float32
		for range n {
			vs = append(vs, randVec(r, Dim))
		}
		s.Put(id, vs)
		vecs[id] = vs
	}
	// Deletes and replacements move rows around.
	for i := 0; i < 300; i += 7 {
		id := fmt.Sprintf("e%03d", i)
		s.Delete(id)
		delete(vecs, id)
	}
	for i := 3; i < 300; i += 11 {
		id := fmt.Sprintf("e%03d", i)
		if _, ok := vecs[id]; !ok {
			continue
		}
		vs := [][]float32{randVec(r, Dim), nil, randVec(r, Dim)}
		s.Put(id, vs)
		vecs[id] = [][]float32{vs[0], vs[2]}
	}
	s.Refresh()
	rows := 0
	mean := make([]float32, Dim)
	for _, vs := range vecs {
		for _, v := range vs {
			rows++
			for d, x := range v {
				mean[d] += x
			}
		}
	}
	for d := range mean {
		mean[d] /= float32(rows)
	}
	if s.Len() != rows {
		t.Fatalf("Len = %d, want %d", s.Len(), rows)
	}
	q := randVec(r, Dim)
	p := s.Prepare(q)
	type ref struct {
		id  string
		cos float64
	}
	var want []ref
	for id, vs := range vecs {
		best := -2.0
		for _, v := range vs {
			best = max(best, refCos(q, v, mean))
		}
		want = append(want, ref{id, best})
		m, ok := p.Best(id)
		if !ok || math.Abs(float64(m.Cos)-best) > 0.02 {
			t.Fatalf("Best(%s) = %v %v, want cosine %.3f", id, m, ok, best)
		}
	}
	slices.SortFunc(want, func(a, b ref) int {
		if a.cos > b.cos {
			return -1
		}
		return 1
	})
	top := p.Top(10)
	if len(top) != 10 {
		t.Fatalf("Top(10) gave %d", len(top))
	}
	for i, m := range top {
		if math.Abs(float64(m.Cos)-want[i].cos) > 0.02 {
			t.Errorf("Top[%d] = %s %.3f, want about %.3f (%s)", i, m.ID, m.Cos, want[i].cos, want[i].id)
		}
	}
	for i := 0; i < 300; i += 7 {
		if id := fmt.Sprintf("e%03d", i); s.Has(id) {
			t.Errorf("deleted %s still held", id)
		}
		if _, ok := p.Best(fmt.Sprintf("e%03d", i)); ok {
			t.Errorf("deleted e%03d still found", i)
		}
	}
}

func TestEmbedNeighbours(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	var e Encoder
	vec := func(s string) []float32 {
		v := make([]float32, Dim)
		if !e.Embed(s, v) {
			t.Fatalf("Embed(%q): no vector", s)
		}
		return v
	}
	cases := []struct{ a, near, far string }{
		{"my kid is sad", "the child feels lonely", "we deployed the server"},
		{"花生过敏", "I am allergic to peanuts", "the weather is cold"},
		{"孩子很难过", "the child feels lonely", "I paid the electricity bill"},
		{"we had pizza", "比萨饼", "孤独"},
	}
	for _, c := range cases {
		a := vec(c.a)
		if near, far := dotF(a, vec(c.near)), dotF(a, vec(c.far)); near <= far {
			t.Errorf("%q: cosine to %q %.2f, to %q %.2f; want the first nearer", c.a, c.near, near, c.far, far)
		}
	}
	for _, s := range []string{"", "the of and", "的了吗", "?!"} {
		if e.Embed(s, make([]float32, Dim)) {
			t.Errorf("Embed(%q) found a vector, want none", s)
		}
	}
}

func BenchmarkEmbed(b *testing.B) {
	Load()
	texts := []string{
		"Bart won first place in the men's 100 meters at the school sports festival and felt very happy.",
		"Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
		"我对花生过敏，不能吃花生酱，上次在朋友家吃了一块饼干就起了疹子。",
	}
	var e Encoder
	out := make([]float32, Dim)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Embed(texts[i%len(texts)], out)
	}
}

func BenchmarkTop(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1000, 10000, 100000} {
		s := NewSet(Dim)
		for i := range n {
			s.Put(fmt.Sprintf("e%06d", i), [][]float32{randVec(r, Dim)})
		}
		s.Refresh()
		q := randVec(r, Dim)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				s.Prepare(q).Top(100)
			}
		})
	}
}

// checkClusters verifies that every row is in exactly one cluster, where
// its bookkeeping says.
func checkClusters(t *testing.T, s *Set) {
	t.Helper()
	cl := s.cl
	if cl == nil {
		t.Fatal("no clusters")
	}
	if len(cl.of) != s.Len() || len(cl.at) != s.Len() {
		t.Fatalf("bookkeeping of %d/%d rows for %d", len(cl.of), len(cl.at), s.Len())
	}
	seen := make([]bool, s.Len())
	for c, list := range cl.lists {
		for i, r := range list {
			if seen[r] || cl.of[r] != int32(c) || cl.at[r] != int32(i) {
				t.Fatalf("row %d: in cluster %d at %d, bookkeeping says %d at %d (seen %v)", r, c, i, cl.of[r], cl.at[r], seen[r])
			}
			seen[r] = true
		}
	}
	for r, ok := range seen {
		if !ok {
			t.Fatalf("row %d in no cluster", r)
		}
	}
}

func TestSetClusters(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := NewSet(Dim)
	vecs := map[string][]float32{}
	n := clusterRows + 1500
	for i := range n {
		id := fmt.Sprintf("e%05d", i)
		v := randVec(r, Dim)
		s.Put(id, [][]float32{v})
		vecs[id] = v
	}
	s.Refresh()
	checkClusters(t, s)
	for i := 0; i < n; i += 3 {
		id := fmt.Sprintf("e%05d", i)
		s.Delete(id)
		delete(vecs, id)
	}
	s.Refresh()
	checkClusters(t, s)
	if s.Len() != len(vecs) {
		t.Fatalf("Len %d, want %d", s.Len(), len(vecs))
	}
	// A query equal to a memory finds it first, at a cosine of about 1.
	found := 0
	for i := 1; i < 200; i += 3 {
		id := fmt.Sprintf("e%05d", i)
		top := s.Prepare(vecs[id]).Top(10)
		if len(top) != 10 {
			t.Fatalf("Top(10) gave %d", len(top))
		}
		if top[0].ID == id && top[0].Cos > 0.98 {
			found++
		}
		for _, m := range top {
			if b, ok := s.Prepare(vecs[id]).Best(m.ID); !ok || b.Cos != m.Cos {
				t.Fatalf("Top gave %s at %.3f, Best %.3f", m.ID, m.Cos, b.Cos)
			}
		}
	}
	if found < 60 {
		t.Errorf("a memory's own vector found it first %d times of 67", found)
	}
}

// TestGatherKeepsResults: renumbering the rows cluster by cluster (as a
// refresh of a clustered set does) leaves every cluster's rows consecutive
// and changes no search's result.
func TestGatherKeepsResults(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s := NewSet(Dim)
	for i := range clusterRows + 700 {
		vecs := [][]float32{randVec(r, Dim)}
		if i%5 == 0 {
			vecs = append(vecs, randVec(r, Dim))
		}
		s.Put(fmt.Sprintf("e%05d", i), vecs)
	}
	s.Refresh()
	for i := 0; i < 300; i += 2 {
		s.Delete(fmt.Sprintf("e%05d", i))
	}
	for i := range 200 {
		s.Put(fmt.Sprintf("f%05d", i), [][]float32{randVec(r, Dim)})
	}
	queries := make([][]float32, 20)
	before := make([][]Match, len(queries))
	for i := range queries {
		queries[i] = randVec(r, Dim)
		before[i] = s.Prepare(queries[i]).Top(50)
	}
	s.gather()
	checkClusters(t, s)
	next := int32(0)
	for c, list := range s.cl.lists {
		for _, row := range list {
			if row != next {
				t.Fatalf("cluster %d holds row %d, want %d", c, row, next)
			}
			next++
		}
	}
	for i, q := range queries {
		p := s.Prepare(q)
		if after := p.Top(50); !slices.Equal(after, before[i]) {
			t.Fatalf("query %d: Top after gathering\n%v\nwant\n%v", i, after, before[i])
		}
		for _, m := range before[i] {
			if b, ok := p.Best(m.ID); !ok || b.Cos < m.Cos {
				t.Fatalf("query %d: Best(%s) = %v, %v; Top had %v", i, m.ID, b, ok, m)
			}
		}
	}
}
