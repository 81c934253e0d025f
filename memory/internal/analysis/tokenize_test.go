package analysis

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lowercase and stopwords", "The User LIKES the tabs", []string{"user", "like", "tab"}},
		{"stemming", "painting painted paints runner's happily", []string{"paint", "paint", "paint", "runner", "happili"}},
		{"irregular forms", "we went and won", []string{"go", "win"}},
		{"snake case identifier", "MAX_HISTORY_CHARS", []string{"max_history_chars", "max", "histori", "char"}},
		{"camelCase", "maxHistoryChars", []string{"maxhistorychars", "max", "histori", "char"}},
		{"acronym then word", "HTTPServer", []string{"httpserver", "http", "server"}},
		{"acronym plural is one word", "APIs", []string{"api"}},
		{"version number", "v1.43.0", []string{"v1.43.0", "1", "43", "0"}},
		{"numbers kept", "port 8080", []string{"port", "8080"}},
		{"dotted path", "go.mod", []string{"go.mod", "go", "mod"}},
		{"hyphenated", "mango-flavored", []string{"mango-flavored", "mango", "flavor"}},
		{"contraction is a stopword", "don't", nil},
		{"CJK bigrams and unigrams", "发布日期", []string{"发", "发布", "布", "布日", "日", "日期", "期"}},
		{"lone CJK character", "猫", []string{"猫"}},
		{"CJK stop bigram and particles", "我们的猫", []string{"猫"}},
		{"mixed", "Bluebird 什么时候发布", []string{"bluebird", "候发", "发", "发布", "布"}},
		{"accents kept", "Café naïve", []string{"café", "naïve"}},
		{"full width folded", "Ｐｙｔｈｏｎ３．１２ ＭＡＸ＿ＣＨＡＲＳ", []string{"python3.12", "python", "3", "12", "max_chars", "max", "char"}},
		{"punctuation only", "!!! ... ---", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokenize(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTokenizeSpans(t *testing.T) {
	t.Parallel()
	text := "Set MAX_HISTORY_CHARS 在配置里"
	var tk Tokenizer
	var surfaces []string
	tk.Each(text, func(_ []byte, _ Class, start, end int) {
		surfaces = append(surfaces, text[start:end])
	})
	want := []string{"Set", "MAX_HISTORY_CHARS", "MAX", "HISTORY", "CHARS", "配", "配置", "置", "置里"}
	if !slices.Equal(surfaces, want) {
		t.Errorf("surfaces = %q, want %q", surfaces, want)
	}
}

func TestStem(t *testing.T) {
	t.Parallel()
	// Examples from Porter's paper and the reference vocabulary.
	tests := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalization": "gener", "oscillators": "oscil", "went": "go", "children": "child",
	}
	for in, want := range tests {
		if got := string(stem([]byte(in))); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"MAX_HISTORY_CHARS", "camelCaseHTTPServer", "Bluebird 什么时候发布", "don't", "v1.2.3-rc.1",
		"a'b’c", "\xff\xfe", "ÀÉÎ_õü", "日本語のテキスト", "한국어", "x.y-z_w", strings.Repeat("ab", 100),
		"'s", "’s", "_", "1a2b3c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var tk Tokenizer
		tk.Each(text, func(term []byte, class Class, start, end int) {
			if len(term) == 0 {
				t.Fatalf("empty term from %q", text)
			}
			if len(term) > MaxTermBytes {
				t.Fatalf("term of %d bytes from %q", len(term), text)
			}
			if !utf8.Valid(term) {
				t.Fatalf("invalid UTF-8 term %q from %q", term, text)
			}
			if start < 0 || end > len(text) || start >= end {
				t.Fatalf("bad span [%d,%d) in %q", start, end, text)
			}
		})
		for _, term := range Tokenize(text) {
			if !utf8.ValidString(term) {
				t.Fatalf("invalid UTF-8 term %q", term)
			}
		}
	})
}

// TestWordsSpans checks that Words finds the spans of exactly the Latin
// terms Each finds, in order, on texts of every kind of run.
func TestWordsSpans(t *testing.T) {
	t.Parallel()
	texts := []string{
		"The User LIKES the tabs", "painting painted paints runner's happily", "MAX_HISTORY_CHARS maxHistoryChars",
		"HTTPServer APIs v1.43.0 port 8080 go.mod mango-flavored don't", "Bluebird 什么时候发布 猫 我们的猫",
		"Café naïve Ｐｙｔｈｏｎ３．１２ ＭＡＸ＿ＣＨＡＲＳ", "a I x 7 ab", "!!! ... ---", "",
	}
	var tok Tokenizer
	for _, text := range texts {
		var want, got [][2]int
		tok.Each(text, func(_ []byte, class Class, start, end int) {
			if class < Bi {
				want = append(want, [2]int{start, end})
			}
		})
		tok.Words(text, func(start, end int) { got = append(got, [2]int{start, end}) })
		if !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %v, want %v", text, got, want)
		}
		if terms := Tokenize(text); len(terms) > 0 && len(want) == 0 && !strings.ContainsFunc(text, IsCJK) {
			t.Errorf("Each(%q) found no Latin term of %v", text, terms)
		}
	}
}
