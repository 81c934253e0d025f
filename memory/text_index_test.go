package memory_test

import (
	"testing"

	"engram/memory"
)

// A text index finds texts by their words only: not a text beside the one
// that matched (context), not one that shares other words with it
// (feedback); and a text deleted is not found.
func TestTextIndex(t *testing.T) {
	x := memory.NewTextIndex()
	x.PutAll([]memory.Text{
		{ID: "a", Text: "We deployed the frontend on Friday."},
		{ID: "b", Text: "The frontend build uses esbuild and Friday releases."},
		{ID: "c", Text: "Releases go out with esbuild."},
	})
	x.Put("d", "Deploying on Monday is safer.")
	hits := x.Search("deploy", 10)
	if len(hits) != 2 || hits[0].ID != "a" && hits[0].ID != "d" || len(hits[0].Terms) == 0 {
		t.Fatalf("deploy: %+v", hits)
	}
	for _, h := range hits {
		if h.ID != "a" && h.ID != "d" {
			t.Errorf("deploy found %+v", h)
		}
	}
	x.Delete("a")
	if hits := x.Search("deploy", 10); len(hits) != 1 || hits[0].ID != "d" || x.Len() != 3 {
		t.Errorf("after delete: %+v, %d indexed", hits, x.Len())
	}
	if hits := x.Search("weather", 10); hits != nil {
		t.Errorf("weather: %+v", hits)
	}
}
