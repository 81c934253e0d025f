package dense

import "testing"

// TestChineseWordTakesItsFirstGlosses checks that a Chinese word's vector
// is made of its first, short glosses only: 难过 is "feel" and "sad"
// (1/√2 each), not also "difficult" (a later sense, 0.58).
func TestChineseWordTakesItsFirstGlosses(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	tb := get()
	want := make([]float32, Dim)
	for _, w := range []string{"feel", "sad"} {
		i := tb.find(w)
		if i < 0 {
			t.Fatalf("no vector of %q", w)
		}
		tb.addTo(want, i, 1)
	}
	unit(want)
	var e Encoder
	got := make([]float32, Dim)
	if !e.Embed("难过", got) {
		t.Fatal("难过 has no vector")
	}
	if c := dotF(got, want); c < 0.999 {
		t.Errorf("cosine of 难过 to feel + sad is %.3f, want 1: other glosses went in", c)
	}
}
