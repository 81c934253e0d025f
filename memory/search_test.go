package memory_test

import (
	"fmt"
	"slices"
	"testing"

	"engram/memory"
)

func searchStore(t *testing.T, texts ...string) (*memory.Store, map[string]string) {
	t.Helper()
	s := memory.NewInMemory(memory.Options{})
	ids := map[string]string{}
	for _, text := range texts {
		e, _, err := s.Add(memory.Entry{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		ids[e.ID] = text
	}
	return s, ids
}

func TestStoreSearch(t *testing.T) {
	t.Parallel()
	s, ids := searchStore(t,
		"Backups of the laptop run with rsync every night",
		"The rsyncd daemon on the NAS listens on port 873",
		"Prefers tabs over spaces in Go code",
		"喜欢喝黑咖啡，不加糖",
	)
	for _, tc := range []struct {
		query string
		want  []string // the best hits, in any order; nil: no hit at all
	}{
		{"rsyn", []string{"Backups of the laptop run with rsync every night", "The rsyncd daemon on the NAS listens on port 873"}},
		{"  rsyn", []string{"Backups of the laptop run with rsync every night", "The rsyncd daemon on the NAS listens on port 873"}},
		{"laptop rsyn", []string{"Backups of the laptop run with rsync every night", "The rsyncd daemon on the NAS listens on port 873"}},
		{"rsyn ", nil}, // a space after it: the word is complete, and matches nothing
		{"rsyncd", []string{"The rsyncd daemon on the NAS listens on port 873"}},
		{"tab", []string{"Prefers tabs over spaces in Go code"}},
		{"xyzzy", nil}, // starts no word: searched as typed
		{"咖啡", []string{"喜欢喝黑咖啡，不加糖"}},
		{"", nil},
		{"   ", nil},
	} {
		hits := s.Search(tc.query, 10)
		if tc.want == nil {
			if len(hits) > 0 {
				t.Errorf("Search(%q): %d hits, want none", tc.query, len(hits))
			}
			continue
		}
		var got []string
		for _, h := range hits[:min(len(hits), len(tc.want))] {
			got = append(got, ids[h.Entry.ID])
		}
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %q, want %q", tc.query, got, want)
		}
	}
}

// TestStoreSearchIsRecallOfTheCompletedQuery: Search ranks as Recall does
// the query with its last word completed, and keeps to k.
func TestStoreSearchIsRecallOfTheCompletedQuery(t *testing.T) {
	t.Parallel()
	var texts []string
	for i := range 12 {
		texts = append(texts, fmt.Sprintf("deploy note %d: the deployment of service %d waits for review", i, i))
	}
	s, _ := searchStore(t, texts...)
	words := s.Complete("deplo", 8)
	if len(words) != 2 {
		t.Fatalf("Complete(deplo) = %q, want deploy and deployment", words)
	}
	got := s.Search("review deplo", 3)
	want := s.Recall("review "+words[0]+" "+words[1], nil, memory.RecallOptions{K: 3})
	if len(got) != 3 || len(got) != len(want) {
		t.Fatalf("Search gave %d hits, Recall of the completed query %d; want 3", len(got), len(want))
	}
	for i := range got {
		if got[i].Entry.ID != want[i].Entry.ID || got[i].Score != want[i].Score {
			t.Errorf("hit %d: Search %s (%.3f), Recall %s (%.3f)", i, got[i].Entry.ID, got[i].Score, want[i].Entry.ID, want[i].Score)
		}
	}
	if n := len(s.Search("deplo", 0)); n != memory.DefaultTopK {
		t.Errorf("Search with k 0: %d hits, want DefaultTopK (%d)", n, memory.DefaultTopK)
	}
}

// TestStoreSearchShowsOnlyWhatMatches: a search box lists the memories that
// match what was typed, not those recall adds for their context (saved in
// the same second as a match): "Miso" among fourteen memories written
// together finds the one with miso, and "rsyn" only the rsync one.
func TestStoreSearchShowsOnlyWhatMatches(t *testing.T) {
	t.Parallel()
	s, ids := searchStore(t,
		"I love miso soup for breakfast",
		"Run go vet before every commit",
		"Backups use rsync to the NAS every night",
		"My sister lives in Osaka",
		"Prefers tabs for indentation in Go",
		"Coffee: oat milk flat white",
		"Soup recipes: tomato, lentil",
		"Dog named Biscuit",
	)
	for query, want := range map[string][]string{
		"Miso":    {"I love miso soup for breakfast"},
		"rsyn":    {"Backups use rsync to the NAS every night"},
		"soup":    {"I love miso soup for breakfast", "Soup recipes: tomato, lentil"},
		"咖啡":      {"Coffee: oat milk flat white"},
		"biscuit": {"Dog named Biscuit"},
	} {
		var got []string
		for _, h := range s.Search(query, 10) {
			got = append(got, ids[h.Entry.ID])
		}
		slices.Sort(got)
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %q, want %q", query, got, want)
		}
	}
}
