package lexicon

import (
	"testing"
	"unicode/utf8"
)

// BenchmarkLoad measures what the first lookup pays: checking the embedded
// table (B/op is the heap it takes).
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(embedded)))
	for b.Loop() {
		if _, err := parse(embedded); err != nil {
			b.Fatal(err)
		}
	}
}

// benchQuery is a Chinese query of the kind recall sees.
const benchQuery = "我对花生过敏点外卖要注意什么上次医生说的咖啡因也要少喝"

func BenchmarkSegment(b *testing.B) {
	Load()
	b.ReportAllocs()
	for b.Loop() {
		Segment(benchQuery)
	}
}

// BenchmarkMatch segments the query without building the result slice.
func BenchmarkMatch(b *testing.B) {
	Load()
	b.ReportAllocs()
	for b.Loop() {
		for s := benchQuery; s != ""; {
			n := Match(s)
			if n == 0 {
				_, n = utf8.DecodeRuneInString(s)
			}
			s = s[n:]
		}
	}
}

func BenchmarkGlosses(b *testing.B) {
	Load()
	words := []string{"过敏", "花生", "咖啡", "对", "外卖", "注意", "医生", "什么"}
	b.ReportAllocs()
	var sum float32
	for b.Loop() {
		for _, w := range words {
			for t := range Glosses(w).All() {
				sum += t.Weight
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	_ = sum
}

func BenchmarkChinese(b *testing.B) {
	Load()
	terms := []string{"peanut", "allerg", "coffe", "doctor", "takeout", "food", "work", "friend"}
	b.ReportAllocs()
	var sum float32
	for b.Loop() {
		for _, e := range terms {
			for t := range Chinese(e).All() {
				sum += t.Weight
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(terms)), "ns/term")
	_ = sum
}

func BenchmarkFold(b *testing.B) {
	Load()
	for _, bc := range []struct{ name, s string }{
		{"simplified", benchQuery},
		{"traditional", "我對花生過敏點外賣要注意什麼上次醫生說的咖啡因也要少喝"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Fold(bc.s)
			}
		})
	}
}
