package memory

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/memory/internal/randtext"
)

func recallRandEntry(r *rand.Rand, id string) Entry {
	created := randtext.Base.Add(time.Duration(r.IntN(40)) * time.Hour)
	return Entry{
		ID:      id,
		Kind:    Kinds[r.IntN(len(Kinds))],
		Text:    randtext.Text(r),
		Pinned:  r.IntN(10) == 0,
		Created: created,
		Updated: created,
	}
}

// recallQueries runs a fixed set of queries with and without cut-off.
func recallQueries(ix *EntryIndex) [][]Hit {
	queries := []struct {
		q    string
		hist []string
	}{
		{"deploy server", nil},
		{"MAX_HISTORY_CHARS", nil},
		{"history chars", nil},
		{"发布日期", nil},
		{"Bluebird 什么时候发布", []string{"服务器配置"}},
		{"继续", []string{"rust memory index", "python tabs"}},
		{"preference", nil},
		{"偏好", nil},
		{"v1.2.3 camelCase", nil},
	}
	var out [][]Hit
	for _, q := range queries {
		out = append(out, ix.Search(q.q, q.hist, RecallOptions{K: 20, NoCutoff: true}))
		out = append(out, ix.Search(q.q, q.hist, RecallOptions{}))
	}
	return out
}

// A new version with the same text and kind (a use recorded) is not
// indexed again, but hits carry the new version.
func TestHitsCarryNewVersion(t *testing.T) {
	t.Parallel()
	ix := NewEntryIndex()
	e := Entry{ID: "a", Kind: KindFact, Text: "The deploy runs from the blue pipeline.", Created: randtext.Base, Updated: randtext.Base}
	ix.Put(e)
	e.Uses, e.LastUsed, e.Pinned = 3, randtext.Base.Add(time.Hour), true
	ix.Put(e)
	hits := ix.Search("deploy pipeline", nil, RecallOptions{})
	if len(hits) != 1 || hits[0].Entry.Uses != 3 || !hits[0].Entry.Pinned {
		t.Fatalf("hits after a use: %+v", hits)
	}
	e.Kind = KindPreference // the kind label is indexed: a new kind re-indexes
	ix.Put(e)
	if hits := ix.Search("preference", nil, RecallOptions{}); len(hits) != 1 || hits[0].Entry.ID != "a" || hits[0].Entry.Kind != KindPreference {
		t.Errorf("after a change of kind: %v", briefHits(hits))
	}
}

func TestPutAllEqualsPut(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 5))
	var es []Entry
	for i := range 300 {
		es = append(es, recallRandEntry(r, fmt.Sprint(i)))
	}
	es[7].Deleted = randtext.Base // not live: left out
	one := NewEntryIndex()
	for _, e := range es {
		one.Put(e)
	}
	all := NewEntryIndex()
	all.PutAll(es)
	if !reflect.DeepEqual(recallQueries(all), recallQueries(one)) {
		t.Fatal("PutAll and Put give different results")
	}
	// With a duplicate id (the later one wins), and into a non-empty index.
	dup := append(slices.Clone(es[:50]), es[10])
	dup[50].Text = "replaced text about deploy"
	a, b := NewEntryIndex(), NewEntryIndex()
	a.PutAll(dup)
	for _, e := range dup {
		b.Put(e)
	}
	a.PutAll(es[50:60])
	for _, e := range es[50:60] {
		b.Put(e)
	}
	if !reflect.DeepEqual(recallQueries(a), recallQueries(b)) || a.Len() != 59 {
		t.Fatalf("PutAll with duplicates: Len %d, results differ: %v", a.Len(), !reflect.DeepEqual(recallQueries(a), recallQueries(b)))
	}
}

func briefHits(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%d %.4f %q", h.Entry.ID, h.Chunk, h.Score, h.Terms))
	}
	return out
}

func TestIndexConcurrent(t *testing.T) {
	t.Parallel()
	ix := NewEntryIndex()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		ix.Put(recallRandEntry(r, fmt.Sprint(i)))
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range 300 {
				switch w {
				case 0:
					ix.Put(recallRandEntry(r, fmt.Sprint(r.IntN(300))))
				case 1:
					ix.Delete(fmt.Sprint(r.IntN(300)))
				default:
					ix.Search(randtext.Text(r), []string{randtext.Text(r)}, RecallOptions{K: 1 + i%10})
					ix.Len()
				}
			}
		})
	}
	wg.Wait()
}
