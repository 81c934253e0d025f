package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// writeSample writes a small file in the package's layout: words by rank
// (with forms of one stem, a stopword and punctuation among them), vectors
// of dim values followed by the norm and the rank.
func writeSample(t *testing.T, dim int) string {
	t.Helper()
	words := []string{"the", ",", "run", "coffee", "running", "runs", "peanut", "allergy", "garden", "x-ray"}
	r := rand.New(rand.NewPCG(3, 4))
	vecs := map[string][]float64{}
	for i, w := range words {
		v := make([]float64, dim+2)
		for d := range dim {
			v[d] = r.NormFloat64()
		}
		v[dim], v[dim+1] = 1, float64(i)
		vecs[w] = v
	}
	b, err := json.Marshal(map[string]any{"precision": 8, "l2NormIndex": dim, "wordIndex": dim + 1,
		"size": len(words), "dimensions": dim, "words": words, "vectors": vecs})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sample.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGenerateDeterministic(t *testing.T) {
	in := writeSample(t, 100)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	for _, out := range []string{a, b} {
		if err := run(in, out, defaultTop); err != nil {
			t.Fatal(err)
		}
	}
	ta, _ := os.ReadFile(a)
	tb, _ := os.ReadFile(b)
	if !bytes.Equal(ta, tb) {
		t.Fatal("two runs on the same input wrote different tables")
	}
	if !bytes.HasPrefix(ta, []byte("ENGVEC1\n")) {
		t.Fatalf("table starts %q", ta[:8])
	}
	dim, n := binary.LittleEndian.Uint32(ta[8:]), binary.LittleEndian.Uint32(ta[12:])
	// run, runs and running make one term; the stopword, the comma and the
	// identifier make none.
	if dim != 100 || n != 5 {
		t.Errorf("dim %d, %d terms; want 100 and 5 (run, coffe, peanut, allergi, garden)", dim, n)
	}
	if err := run(in, filepath.Join(dir, "c.bin"), 3); err != nil {
		t.Fatal(err)
	}
	if tc, _ := os.ReadFile(filepath.Join(dir, "c.bin")); binary.LittleEndian.Uint32(tc[12:]) != 1 {
		t.Errorf("-top 3 kept %d terms, want 1 (run)", binary.LittleEndian.Uint32(tc[12:]))
	}
}

// TestEmbeddedTable checks that the committed table is what the generator
// makes of the package (see ../README.md); skipped without the input.
func TestEmbeddedTable(t *testing.T) {
	in := os.Getenv("ENGRAM_GLOVE_JSON")
	if in == "" {
		t.Skip("ENGRAM_GLOVE_JSON not set")
	}
	out := filepath.Join(t.TempDir(), "vectors.bin")
	if err := run(in, out, defaultTop); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	want, err := os.ReadFile("../vectors.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the generator makes %d bytes that differ from the committed vectors.bin (%d bytes): regenerate it", len(got), len(want))
	}
}
