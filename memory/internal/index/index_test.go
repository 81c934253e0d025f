package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"engram/memory/internal/randtext"
)

// testKinds stand for memory's kinds: the label and boost it gives each.
var testKinds = []struct {
	label string
	boost float32
}{{"preference 偏好", 0.05}, {"correction 纠正", 0.05}, {"lesson 经验 教训", 0}, {"fact 事实", 0}}

func randDoc(r *rand.Rand, id string) Doc {
	created := randtext.Base.Add(time.Duration(r.IntN(40)) * time.Hour)
	k := testKinds[r.IntN(len(testKinds))]
	return Doc{
		ID:      id,
		Label:   k.label,
		Boost:   k.boost,
		Text:    randtext.Text(r),
		Pinned:  r.IntN(10) == 0,
		Created: created,
		Updated: created,
	}
}

// recallQueries runs a fixed set of queries with and without cut-off.
func recallQueries(ix *Index) [][]Hit {
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
		out = append(out, ix.Search(q.q, q.hist, Options{K: 20, NoCutoff: true}))
		out = append(out, ix.Search(q.q, q.hist, Options{K: 5}))
	}
	return out
}

func TestIncrementalEqualsRebuilt(t *testing.T) {
	seeds := uint64(6) // 3000 steps each: two seconds in full, two seeds with -short
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			ix := New()
			live := map[string]Doc{}
			var order []string // first insertion order of the live entries
			for step := range 3000 {
				id := fmt.Sprintf("e%d", r.IntN(400))
				switch op := r.IntN(10); {
				case op < 6: // add or update
					e := randDoc(r, id)
					if old, ok := live[id]; ok {
						e.Created = old.Created
					} else {
						order = append(order, id)
					}
					live[id] = e
					ix.Put(e)
				case op < 8:
					ix.Delete(id)
					if _, ok := live[id]; ok {
						delete(live, id)
						order = slices.DeleteFunc(order, func(s string) bool { return s == id })
					}
				case op < 9: // a removal drawn as a replacement was before
					randDoc(r, id)
					ix.Delete(id)
					if _, ok := live[id]; ok {
						delete(live, id)
						order = slices.DeleteFunc(order, func(s string) bool { return s == id })
					}
				default:
					if step%7 == 0 {
						ix.mu.Lock()
						ix.compact()
						ix.mu.Unlock()
					} else if e, ok := live[id]; ok { // used or pinned: same text
						e.Uses++
						e.LastUsed = randtext.Base.Add(time.Duration(step) * time.Minute)
						e.Pinned = !e.Pinned
						live[id] = e
						ix.Put(e)
					}
				}
			}
			if ix.Len() != len(live) {
				t.Fatalf("Len = %d, want %d", ix.Len(), len(live))
			}
			fresh := New()
			for _, id := range order {
				fresh.Put(live[id])
			}
			got, want := recallQueries(ix), recallQueries(fresh)
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("query %d: incremental index gives\n%v\nrebuilt gives\n%v", i, briefHits(got[i]), briefHits(want[i]))
				}
			}
			if len(want[0]) == 0 {
				t.Fatal("the queries found nothing; the test would not notice a difference")
			}
		})
	}
}

// A new version with the same text, label and boost (a use recorded) is
// not indexed again, but its boost counts.
func TestPutSameTextKeepsChunks(t *testing.T) {
	t.Parallel()
	ix := New()
	e := Doc{ID: "a", Label: "fact 事实", Text: "The deploy runs from the blue pipeline.", Created: randtext.Base, Updated: randtext.Base}
	ix.Put(e)
	ix.Put(Doc{ID: "b", Label: "fact 事实", Text: "Lunch is at noon.", Created: randtext.Base.Add(time.Hour), Updated: randtext.Base.Add(time.Hour)})
	docs := len(ix.docLen)
	e.Uses, e.LastUsed, e.Pinned = 3, randtext.Base.Add(time.Hour), true
	ix.Put(e)
	if len(ix.docLen) != docs || ix.dead != 0 {
		t.Errorf("a use re-indexed the entry: %d chunks (was %d), %d dead", len(ix.docLen), docs, ix.dead)
	}
	before := ix.Search("deploy pipeline", nil, Options{K: 5, NoCutoff: true})
	e.Uses, e.LastUsed, e.Pinned = 0, time.Time{}, false
	ix.Put(e)
	hits := ix.Search("deploy pipeline", nil, Options{K: 5, NoCutoff: true})
	if len(hits) == 0 || len(before) == 0 || hits[0].ID != "a" || before[0].ID != "a" || before[0].Score <= hits[0].Score {
		t.Fatalf("the use and pin did not boost: %v, then %v", briefHits(before), briefHits(hits))
	}
	e.Label, e.Boost = "preference 偏好", 0.05 // the label is indexed: a new one re-indexes
	ix.Put(e)
	if hits := ix.Search("preference", nil, Options{K: 5}); len(hits) != 1 || hits[0].ID != "a" {
		t.Errorf("after a change of kind: %v", briefHits(hits))
	}
}

func briefHits(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%d %.4f %q", h.ID, h.Chunk, h.Score, h.Terms))
	}
	return out
}

func TestIndexCompactFreesTerms(t *testing.T) {
	t.Parallel()
	ix := New()
	for i := range 600 {
		ix.Put(Doc{ID: fmt.Sprint(i), Label: "fact 事实", Text: fmt.Sprintf("unique%d shared 独特%d", i, i)})
	}
	terms := ix.words.n + ix.cjk.n
	for i := range 599 {
		ix.Delete(fmt.Sprint(i))
	}
	if len(ix.docLen) >= 600 {
		t.Fatalf("no compaction after removing most entries: %d dead of %d", ix.dead, len(ix.docLen))
	}
	if now := ix.words.n + ix.cjk.n; now >= terms/2 {
		t.Errorf("dictionary still holds %d of %d terms after compaction", now, terms)
	}
	hits := ix.Search("unique599 shared", nil, Options{K: 5})
	if len(hits) != 1 || hits[0].ID != "599" {
		t.Errorf("after compaction: %v", briefHits(hits))
	}
}
