package secret

// literals finds where any of a set of strings of two or more bytes
// occurs in a text, in one pass: each string is filed under its first two
// bytes, so a position whose two bytes start none costs one look-up.
type literals struct {
	words []string
	head  []uint16  // by first two bytes: 1 + index into lists, or 0
	lists [][]int32 // indexes into words
}

// newLiterals files words; each has two bytes or more.
func newLiterals(words []string) *literals {
	l := &literals{words: words, head: make([]uint16, 1<<16)}
	for i, w := range words {
		if len(w) < 2 {
			panic("secret: a literal shorter than two bytes: " + w)
		}
		p := pair(w, 0)
		if l.head[p] == 0 {
			l.lists = append(l.lists, nil)
			l.head[p] = uint16(len(l.lists))
		}
		l.lists[l.head[p]-1] = append(l.lists[l.head[p]-1], int32(i))
	}
	return l
}

func pair(s string, i int) uint16 { return uint16(s[i])<<8 | uint16(s[i+1]) }

// each calls f with the position and index of every occurrence of the
// words in s, by position, until f returns true.
func (l *literals) each(s string, f func(pos, word int) bool) {
	for i := 0; i+1 < len(s); i++ {
		h := l.head[pair(s, i)]
		if h == 0 {
			continue
		}
		for _, w := range l.lists[h-1] {
			if word := l.words[w]; len(s)-i >= len(word) && s[i:i+len(word)] == word && f(i, int(w)) {
				return
			}
		}
	}
}
