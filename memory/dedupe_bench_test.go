package memory_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

// importEntries returns n memories of the shape an import brings: short
// sentences, English and Chinese, that mostly start alike ("The user …",
// "用户…"), their words drawn from Zipf distributions over vocabularies of a
// few thousand words, and one in fifty a copy or a piece of an earlier one.
func importEntries(n int) []memory.Entry {
	r := rand.New(rand.NewPCG(11, 12))
	syll := strings.Fields("ka lo mi ne ru sa ti vo be da fi gu ha je ko lu ma no pe ra se to un ve wa xi yo ze ar el in or us")
	han := []rune("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近")
	en := make([]string, 5000)
	for i := range en {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		en[i] = b.String()
	}
	zh := make([]string, 5000)
	for i := range zh {
		zh[i] = string([]rune{han[r.IntN(len(han))], han[r.IntN(len(han))]})
	}
	enZipf := rand.NewZipf(r, 1.1, 2, uint64(len(en)-1))
	zhZipf := rand.NewZipf(r, 1.1, 2, uint64(len(zh)-1))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	es := make([]memory.Entry, n)
	for i := range es {
		var b strings.Builder
		if r.IntN(3) == 0 {
			b.WriteString("用户")
			for range 6 + r.IntN(20) {
				b.WriteString(zh[zhZipf.Uint64()])
			}
			b.WriteString("。")
		} else {
			b.WriteString("The user")
			for range 6 + r.IntN(20) {
				b.WriteString(" " + en[enZipf.Uint64()])
			}
			b.WriteString(".")
		}
		text := b.String()
		if i > 0 && r.IntN(50) == 0 {
			earlier := []rune(es[r.IntN(i)].Text)
			text = string(earlier[:max(len(earlier)*3/4, 1)])
		}
		es[i] = memory.Entry{ID: fmt.Sprintf("m%07d", i), Kind: memory.KindFact, Text: text,
			Source: memory.SourceImport, Created: t0.Add(time.Duration(i) * time.Minute)}
	}
	return es
}

// BenchmarkAddAll100k imports 100,000 memories into an empty in-memory
// store with one AddAll, as engramctl bench-recall and an import do,
// duplicates merged (target ≤ 1.5 s).
func BenchmarkAddAll100k(b *testing.B) {
	es := importEntries(100_000)
	merged := 0
	for b.Loop() {
		s := memory.NewInMemory(memory.Options{MaxEntries: len(es)})
		res, err := s.AddAll(es)
		if err != nil {
			b.Fatal(err)
		}
		merged = 0
		for _, r := range res {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
			if !r.New {
				merged++
			}
		}
	}
	b.ReportMetric(float64(merged), "merged")
}
