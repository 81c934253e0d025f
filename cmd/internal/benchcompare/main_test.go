package main

import (
	"strings"
	"testing"
)

func TestParseBenchOutput(t *testing.T) {
	out := `goos: linux
BenchmarkOpen10k-2   	      16	  70123456 ns/op	 1234 B/op	      56 allocs/op
BenchmarkSearch/chunks=100k-2         	    5000	    350123 ns/op	       312.0 p50-us	       801.0 p95-us
BenchmarkNoFigures-2 FAIL
PASS
`
	got := parseBenchOutput(strings.NewReader(out))
	want := []metric{
		{"BenchmarkOpen10k", "ns/op", 70123456}, {"BenchmarkOpen10k", "B/op", 1234},
		{"BenchmarkOpen10k", "allocs/op", 56},
		{"BenchmarkSearch/chunks=100k", "ns/op", 350123}, {"BenchmarkSearch/chunks=100k", "p50-us", 312},
		{"BenchmarkSearch/chunks=100k", "p95-us", 801},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d metrics %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("metric %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestMedianAndRatio(t *testing.T) {
	if m := median([]float64{5, 1, 3}); m != 3 {
		t.Errorf("median of 5,1,3 = %v, want 3", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of 4,1,3,2 = %v, want 2.5", m)
	}
	if r := ratioText([]float64{2, 2}, []float64{3, 3}); r != "1.50×" {
		t.Errorf("ratio = %q, want 1.50×", r)
	}
	if r := ratioText(nil, []float64{3}); r != "-" {
		t.Errorf("ratio without base = %q, want -", r)
	}
}
