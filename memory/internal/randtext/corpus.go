package randtext

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The benchmark corpus (Corpus): deterministic, mixed English and Chinese memories of
// realistic shape (mostly a sentence or two, some long notes that span
// several chunks, identifiers and numbers here and there), with words drawn
// from Zipf distributions so that some terms are very common and most rare.

var benchEnglish = strings.Fields(`user prefers tabs spaces go rust python tests benchmark deploy server
client config file path directory build release version branch commit review merge bug fix error
log trace timeout retry cache memory index query search recall answer short long style format
markdown code comment function method type struct interface package module import export api
http json yaml database table column row migration schema backup restore project deadline meeting
team manager customer report weekly daily morning evening coffee tea lunch dinner travel flight
hotel city berlin tokyo paris london family daughter son wife husband birthday party gift dog cat
garden run hike swim bike music guitar piano concert book novel film movie paint draw photo camera
phone laptop keyboard monitor editor vim emacs terminal shell script linux mac windows docker
kubernetes cloud bucket storage network proxy token secret password key certificate domain email
calendar reminder note idea plan goal habit health doctor appointment medicine sleep exercise
weather rain snow summer winter spring autumn holiday vacation beach mountain lake river friend
colleague neighbor teacher student school class exam homework math science history art language
chinese english german french spanish translate learn practice lesson correction fact preference
always never usually sometimes prefer avoid like dislike love hate want need use install update
remove rename move copy paste delete create open close start stop restart check verify measure`)

var benchHan = []rune(`的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞`)

// benchSyllables make up the long tail of the English vocabulary: rarer
// words, names and jargon, as real notes have.
var benchSyllables = strings.Fields("ka lo mi ne ru sa ti vo be da fi gu ha je ko lu ma no pe qui ra se to un ve wa xi yo ze ar el in or us")

// benchWords is the English vocabulary: the real words above first (the
// most frequent), then 20,000 made-up ones.
var benchWords = func() []string {
	r := rand.New(rand.NewPCG(5, 5))
	out := slices.Clone(benchEnglish)
	seen := make(map[string]bool)
	for len(out) < len(benchEnglish)+20000 {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(benchSyllables[r.IntN(len(benchSyllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}()

// benchVocab is the Chinese vocabulary: 20,000 two- and three-character
// words over 3,000 characters, the common characters most often.
var benchVocab = func() []string {
	r := rand.New(rand.NewPCG(7, 7))
	chars := rand.NewZipf(r, 1.05, 8, 2999)
	out := make([]string, 20000)
	for i := range out {
		n := 2 + r.IntN(2)
		w := make([]rune, n)
		for j := range w {
			if c := int(chars.Uint64()); c < len(benchHan) {
				w[j] = benchHan[c]
			} else {
				w[j] = rune(0x4e00 + c*7)
			}
		}
		out[i] = string(w)
	}
	return out
}()

// Corpus draws the memories and queries of the engine's benchmarks.
type Corpus struct {
	r          *rand.Rand
	en, zh, nm *rand.Zipf
	seq        int
}

// NewCorpus returns the corpus of a seed: the same seed draws the same
// memories and queries.
func NewCorpus(seed uint64) *Corpus {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &Corpus{
		r:  r,
		en: rand.NewZipf(r, 1.07, 8, uint64(len(benchWords)-1)),
		zh: rand.NewZipf(r, 1.07, 8, uint64(len(benchVocab)-1)),
		nm: rand.NewZipf(r, 1.3, 1, 50000),
	}
}

// word returns one English word, now and then an identifier or a number.
func (g *Corpus) word() string {
	switch g.r.IntN(40) {
	case 0:
		return fmt.Sprintf("MAX_%s_%s", strings.ToUpper(benchWords[g.en.Uint64()]), strings.ToUpper(benchWords[g.en.Uint64()]))
	case 1:
		w := benchWords[g.en.Uint64()]
		return w + strings.ToUpper(w[:1]) + benchWords[g.en.Uint64()][1:]
	case 2:
		return fmt.Sprint(g.nm.Uint64())
	case 3:
		return fmt.Sprintf("project%d", g.nm.Uint64())
	}
	return benchWords[g.en.Uint64()]
}

// text returns about n runes of English, Chinese or mixed text.
func (g *Corpus) text(n int) string {
	var b strings.Builder
	lang := g.r.IntN(10) // 0-5 English, 6-8 Chinese, 9 mixed
	for runes := 0; runes < n; {
		zh := lang >= 6 && lang <= 8 || lang == 9 && g.r.IntN(2) == 0
		if zh {
			w := benchVocab[g.zh.Uint64()]
			b.WriteString(w)
			runes += utf8.RuneCountInString(w)
			if g.r.IntN(8) == 0 {
				b.WriteString("，")
				runes++
			}
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
			runes++
		}
		w := g.word()
		b.WriteString(w)
		runes += len(w)
		if g.r.IntN(10) == 0 {
			b.WriteByte('.')
			runes++
		}
	}
	return b.String()
}

// Entry is one memory of the corpus. Kind is an index into the four kinds
// of memory, in the order of memory.Kinds.
type Entry struct {
	ID      string
	Text    string
	Kind    int
	Created time.Time
	Pinned  bool
}

// Entry returns the next memory, created within the year before now:
// mostly short, one in ten a long note.
func (g *Corpus) Entry(now time.Time) Entry {
	g.seq++
	var n int
	switch x := g.r.IntN(10); {
	case x < 6:
		n = 30 + g.r.IntN(170)
	case x < 9:
		n = 200 + g.r.IntN(120)
	default:
		n = 400 + g.r.IntN(1100)
	}
	t := now.Add(-time.Duration(g.r.IntN(365*24)) * time.Hour)
	k := g.r.IntN(4)
	return Entry{
		ID:      fmt.Sprintf("m%07d", g.seq),
		Kind:    k,
		Text:    g.text(n),
		Created: t,
		Pinned:  g.r.IntN(50) == 0,
	}
}

// Query returns a short message, with history half of the time.
func (g *Corpus) Query() (string, []string) {
	q := g.text(10 + g.r.IntN(40))
	var hist []string
	for range g.r.IntN(4) {
		hist = append(hist, g.text(20+g.r.IntN(60)))
	}
	return q, hist
}
