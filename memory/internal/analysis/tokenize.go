package analysis

import (
	"unicode"
	"unicode/utf8"
)

// Class says how a term was produced; queries weigh the classes
// differently (a CJK unigram says less than a bigram).
type Class uint8

const (
	Word  Class = iota // an English/Latin word, lowercased and stemmed
	Whole              // an identifier or number kept whole (max_history_chars, 1.43.0)
	Part               // a piece of an identifier (max, history, chars)
	Bi                 // two adjacent CJK characters
	Uni                // one CJK character inside a longer run
	Lone               // a CJK character standing alone
)

// Latin reports whether the class is one of a Latin word's (Word, Whole
// and Part): the terms Words finds.
func (c Class) Latin() bool { return c <= Part }

// AppendWords appends the words Words finds in text, lowercased as
// strings.ToLower does, to arena, and the end in arena of each to ends.
func (t *Tokenizer) AppendWords(text string, arena []byte, ends []int32) ([]byte, []int32) {
	t.Words(text, func(start, end int) {
		arena = AppendLower(arena, text[start:end])
		ends = append(ends, int32(len(arena)))
	})
	return arena, ends
}

// AppendLower appends s lowercased as strings.ToLower does (rune by rune,
// full-width letters kept full width) to b, without allocating.
func AppendLower(b []byte, s string) []byte {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b = append(b, byte(r))
		} else {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return b
}

// MaxTermBytes caps the length of a term; longer runs are cut at a rune
// boundary.
const MaxTermBytes = 64

// Tokenizer turns text into index terms. Its buffers are reused between
// calls, so one Tokenizer must not be used by two goroutines at once.
type Tokenizer struct {
	buf   []byte
	part  []byte
	cuts  []int
	runes []cjkRune
	// surface is set during Words: no stemming, no CJK terms.
	surface bool
}

type cjkRune struct {
	r          rune
	start, end int
}

// EmitFunc receives each term (valid only during the call), its class and
// the byte span of its surface form in the text.
type EmitFunc func(term []byte, class Class, start, end int)

// Tokenize splits text into the terms the index uses: English and other Latin
// words lowercased, stopwords dropped and stemmed; identifiers and numbers
// kept whole and also split into their parts (MAX_HISTORY_CHARS →
// max_history_chars, max, history, chars; camelCase → camelcase, camel,
// case); runs of CJK characters as overlapping bigrams plus their single
// characters (a lone character is kept as it is).
func Tokenize(text string) []string {
	var t Tokenizer
	var out []string
	t.Each(text, func(term []byte, _ Class, _, _ int) { out = append(out, string(term)) })
	return out
}

// IsCJK reports whether r is a CJK character (Han, kana or Hangul), the
// runes the tokenizer makes bigrams and unigrams of.
func IsCJK(r rune) bool { return isCJK(r) }

func isCJK(r rune) bool {
	if r < 0x2e80 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) && !isCJK(r)
}

// isJoiner reports whether r joins two word runes into one token when it
// stands between them: apostrophes (don't), dots (1.43.0, go.mod), hyphens.
func isJoiner(r rune) bool {
	return r == '\'' || r == '’' || r == '.' || r == '-'
}

// Words calls fn with the byte span in text of every Latin term Each finds
// (classes Word, Whole and Part), in order, without stemming them and
// without the CJK terms: what a dictionary of the words as written needs,
// at a fraction of Each's cost.
func (t *Tokenizer) Words(text string, fn func(start, end int)) {
	t.surface = true
	defer func() { t.surface = false }()
	t.Each(text, func(_ []byte, _ Class, start, end int) { fn(start, end) })
}

// Each calls fn for every term of text, in order.
func (t *Tokenizer) Each(text string, fn EmitFunc) {
	i := 0
	for i < len(text) {
		r, n := decodeFolded(text[i:])
		switch {
		case isWordRune(r):
			end := i + n
			for end < len(text) {
				r2, n2 := decodeFolded(text[end:])
				if isWordRune(r2) {
					end += n2
					continue
				}
				if isJoiner(r2) && end+n2 < len(text) {
					r3, _ := decodeFolded(text[end+n2:])
					if isWordRune(r3) {
						end += n2
						continue
					}
				}
				break
			}
			t.word(text, i, end, fn)
			i = end
		case isCJK(r):
			end := i + n
			t.runes = append(t.runes[:0], cjkRune{r, i, end})
			for end < len(text) {
				r2, n2 := decodeFolded(text[end:])
				if !isCJK(r2) {
					break
				}
				t.runes = append(t.runes, cjkRune{r2, end, end + n2})
				end += n2
			}
			if !t.surface {
				t.cjk(text, fn)
			}
			i = end
		default:
			i += n
		}
	}
}

// cjk emits the bigrams and unigrams of the run in t.runes.
func (t *Tokenizer) cjk(text string, fn EmitFunc) {
	rs := t.runes
	if len(rs) == 1 {
		if _, stop := chineseStopUni[rs[0].r]; !stop {
			t.buf = append(t.buf[:0], text[rs[0].start:rs[0].end]...)
			fn(t.buf, Lone, rs[0].start, rs[0].end)
		}
		return
	}
	for i, c := range rs {
		if _, stop := chineseStopUni[c.r]; !stop {
			t.buf = append(t.buf[:0], text[c.start:c.end]...)
			fn(t.buf, Uni, c.start, c.end)
		}
		if i+1 < len(rs) {
			n := rs[i+1]
			if isParticle(c.r) || isParticle(n.r) {
				continue
			}
			if _, stop := chineseStopBi[uint64(c.r)<<32|uint64(n.r)]; !stop {
				t.buf = append(t.buf[:0], text[c.start:n.end]...)
				fn(t.buf, Bi, c.start, n.end)
			}
		}
	}
}

// word handles one run of word runes and joiners, text[start:end].
func (t *Tokenizer) word(text string, start, end int, fn EmitFunc) {
	w := text[start:end]
	// Drop a possessive 's and note what kind of run this is.
	if n := len(w); n > 2 && (w[n-2] == '\'' && (w[n-1] == 's' || w[n-1] == 'S')) {
		w = w[:n-2]
	} else if n > 4 && w[n-4:n-1] == "’" && (w[n-1] == 's' || w[n-1] == 'S') {
		w = w[:n-4]
	}
	t.cuts = t.cuts[:0]
	compound := false
	prevLen := 0   // bytes of the previous rune
	prevClass := 0 // 0 none, 1 lower, 2 upper, 3 digit, 4 other letter
	off := 0
	for off < len(w) {
		r, n := decodeFolded(w[off:])
		cls := runeClass(r)
		switch {
		case r == '_' || r == '.' || r == '-':
			compound = true
			t.cuts = append(t.cuts, off, off+n)
			cls = 0
		case r == '\'' || r == '’':
			// an apostrophe inside a word (don't) joins it; removed below
		case prevClass == 1 && cls == 2, prevClass == 3 && cls != 3 && cls != 0, prevClass != 3 && prevClass != 0 && cls == 3:
			compound = true
			t.cuts = append(t.cuts, off, off)
		case prevClass == 2 && cls == 1 && off >= 2 && followsCapitals(w, off-prevLen):
			// HTTPServer: the last capital starts the next part, unless it is a
			// plural "s" after an acronym (APIs).
			if !(off+n == len(w) && (r == 's')) {
				compound = true
				t.cuts = append(t.cuts, off-prevLen, off-prevLen)
			}
		}
		if r != '\'' && r != '’' {
			prevClass = cls
			prevLen = n
		}
		off += n
	}
	if !compound {
		t.emitWord(w, start, start+len(w), Word, fn)
		return
	}
	// The whole identifier, lowercased, unstemmed.
	t.buf, _ = lowerInto(t.buf[:0], w)
	if len(t.buf) > 1 {
		fn(clip(t.buf), Whole, start, start+len(w))
	}
	// Its parts.
	from := 0
	for c := 0; c+1 < len(t.cuts); c += 2 {
		if t.cuts[c] > from {
			t.emitWord(w[from:t.cuts[c]], start+from, start+t.cuts[c], Part, fn)
		}
		from = t.cuts[c+1]
	}
	if from < len(w) {
		t.emitWord(w[from:], start+from, start+len(w), Part, fn)
	}
}

// runeClass sorts a rune of a word for word: 1 lower case, 2 upper case,
// 3 a digit, 4 anything else; ASCII without a table lookup.
func runeClass(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z':
			return 1
		case 'A' <= r && r <= 'Z':
			return 2
		case '0' <= r && r <= '9':
			return 3
		}
		return 4
	}
	switch {
	case unicode.IsDigit(r):
		return 3
	case unicode.IsUpper(r):
		return 2
	case unicode.IsLower(r):
		return 1
	}
	return 4
}

// followsCapitals reports whether the rune before w[at:] is upper case: the
// capital at w[at:] (itself after a capital) ends a run of capitals.
func followsCapitals(w string, at int) bool {
	if at <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(w[:at])
	return unicode.IsUpper(r)
}

// emitWord lowercases, drops stopwords and stems a simple word.
func (t *Tokenizer) emitWord(w string, start, end int, class Class, fn EmitFunc) {
	b, ascii := lowerInto(t.part[:0], w)
	t.part = b
	if len(b) == 0 {
		return
	}
	if len(b) == 1 && !(b[0] >= '0' && b[0] <= '9') {
		return
	}
	lx := lexicon[string(b)]
	if lx.stop {
		return
	}
	if ascii && !t.surface && !isDigits(b) {
		b = stemBase(b, lx.base)
	}
	fn(clip(b), class, start, end)
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// lowerInto appends s lowercased, full-width ASCII folded to half width and
// apostrophes dropped, to b; ascii reports that the result is ASCII.
func lowerInto(b []byte, s string) (_ []byte, ascii bool) {
	ascii = true
	for i := 0; i < len(s); {
		r, n := decodeFolded(s[i:])
		i += n
		switch {
		case r == '\'' || r == '’':
		case r < utf8.RuneSelf:
			c := byte(r)
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		default:
			ascii = false
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return b, ascii
}

// decodeFolded decodes the first rune of s, with full-width ASCII folded to
// half width (FoldWidth): "Ｐｙｔｈｏｎ３．１２" reads as "Python3.12".
func decodeFolded(s string) (rune, int) {
	if s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	r, n := utf8.DecodeRuneInString(s)
	return FoldWidth(r), n
}

// clip cuts a term to MaxTermBytes at a rune boundary.
func clip(b []byte) []byte {
	if len(b) <= MaxTermBytes {
		return b
	}
	n := MaxTermBytes
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}
