package index

// Cross-lingual recall: dictionary-based query translation (CLIR) over the
// bilingual lexicon (package lexicon, CC-CEDICT).
//
// The Chinese runs of the query and history are segmented by longest match
// over the dictionary's words, each English word is looked up as the index
// makes it (stemmed), and the translations of one source word form one
// group, a synonym set in the manner of Pirkola's structured queries and of
// Darwish and Oard's probabilistic structured queries: a chunk's frequency
// of the group is the sum of its translations' frequencies, each times the
// translation's weight (how good a translation it is), and so is the
// group's document frequency. BM25 then scores the group as one term: a
// word with many glosses counts once, a stray reading adds little, and a
// gloss that is common in the index lowers the group's idf.
//
// A group weighs xlWeight of the source word's own weight: the original
// terms keep their weight whole, so a query matched well in its own
// language is matched as before, and the translation adds what the other
// language holds. A translation made of several CJK bigrams (冰淇淋) needs
// all of them in the chunk and counts with the least frequent.

import (
	"cmp"
	"math"
	"slices"
	"unicode/utf8"

	"engram/memory/internal/analysis"
	"engram/memory/internal/lexicon"
)

// qgroup is the translations of one source word of the query or history.
type qgroup struct {
	word        string  // the source word (folded Chinese, or an English term)
	w           float32 // weight in the query, before idf
	df, idf     float32 // Σ member weight × df, and its idf
	first, n    int32   // members: sc.members[first : first+n], best first
	minor       bool
	inQuery     bool
	src         int32 // where the word was first met: as qtok
	start, end  int32
	fromChinese bool // the translations are English terms
}

// gmember is one translation of a group: the index terms that make it
// (one, or the bigrams of a longer Chinese word) and its weight.
type gmember struct {
	p        float32
	first, n int32 // term ids: sc.memberIDs[first : first+n], rarest first
	text     string
}

// translate adds the groups of one text (src as in qtok, scale its weight)
// to sc.groups: those of its English terms (sc.enToks, as the tokenizer
// made them) and of the Chinese words of its CJK runes.
func (ix *Index) translate(sc *searchScratch, text string, src int32, scale float32) {
	p := &ix.params
	for _, t := range sc.enToks {
		ix.addGroup(sc, t.term, false, src, t.start, t.end, scale*p.classW[t.class])
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !analysis.IsCJK(r) {
			i += n
			continue
		}
		end := i + n
		for end < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[end:])
			if !analysis.IsCJK(r2) {
				break
			}
			end += n2
		}
		for i < end {
			k := lexicon.Match(text[i:end])
			if k == 0 {
				_, k = utf8.DecodeRuneInString(text[i:end])
			}
			w := text[i : i+k]
			if !analysis.IsChineseStop(w) {
				ws := scale
				if utf8.RuneCountInString(w) == 1 {
					ws *= p.xlUni
				}
				ix.addGroup(sc, w, true, src, i, i+k, ws)
			}
			i += k
		}
	}
}

// addGroup adds the translations of one source word, or its weight to the
// group already made of it.
func (ix *Index) addGroup(sc *searchScratch, word string, chinese bool, src int32, start, end int, w float32) {
	p := &ix.params
	w *= p.xlWeight
	if w <= 0 {
		return
	}
	for i := range sc.groups {
		if g := &sc.groups[i]; g.word == word && g.fromChinese == chinese {
			g.w += w
			g.inQuery = g.inQuery || src == 0
			return
		}
	}
	var ts lexicon.Terms
	if chinese {
		ts = lexicon.Glosses(word)
	} else {
		ts = lexicon.Chinese(word)
	}
	if ts.Len() == 0 {
		return
	}
	g := qgroup{word: word, w: w, first: int32(len(sc.members)), inQuery: src == 0,
		src: src, start: int32(start), end: int32(end), fromChinese: chinese}
	best := ts.At(0).Weight
	for i := range ts.Len() {
		t := ts.At(i)
		if int(g.n) == p.xlMembers || t.Weight < p.xlMinShare*best {
			break
		}
		from := len(sc.memberIDs)
		df, ok := ix.memberTerms(sc, t.Text, chinese)
		if !ok {
			sc.memberIDs = sc.memberIDs[:from]
			continue
		}
		ids := sc.memberIDs[from:]
		slices.SortFunc(ids, func(a, b int32) int { return cmp.Compare(ix.terms[a].df, ix.terms[b].df) })
		sc.members = append(sc.members, gmember{p: t.Weight, first: int32(from), n: int32(len(ids)), text: t.Text})
		g.n++
		g.df += t.Weight * df
	}
	if g.n > 0 {
		sc.groups = append(sc.groups, g)
	}
}

// memberTerms appends to sc.memberIDs the index terms of a translation (an
// English term when the source is Chinese; else a Chinese word: its
// character, or its bigrams) and returns its document frequency, at most
// that of its rarest term; false when the index lacks one of them.
func (ix *Index) memberTerms(sc *searchScratch, text string, chinese bool) (float32, bool) {
	if chinese {
		id, ok := ix.words.get(hashText(text) | 1)
		if !ok || ix.terms[id].df == 0 {
			return 0, false
		}
		sc.memberIDs = append(sc.memberIDs, id)
		return float32(ix.terms[id].df), true
	}
	r1, n := utf8.DecodeRuneInString(text)
	if n == len(text) {
		id, ok := ix.cjk.get(uint64(r1) << 32)
		if !ok || ix.terms[id].df == 0 {
			return 0, false
		}
		sc.memberIDs = append(sc.memberIDs, id)
		return float32(ix.terms[id].df), true
	}
	df := int32(math.MaxInt32)
	for i := n; i < len(text); {
		r2, n2 := utf8.DecodeRuneInString(text[i:])
		id, ok := ix.cjk.get(uint64(r1)<<32 | uint64(r2))
		if !ok || ix.terms[id].df == 0 {
			return 0, false
		}
		sc.memberIDs = append(sc.memberIDs, id)
		df = min(df, ix.terms[id].df)
		r1 = r2
		i += n2
	}
	return float32(df), true
}

// finishGroups sets each group's idf and minor flag, as buildQuery does for
// terms, and returns the groups' total weight, the sum of weight × idf.
func (ix *Index) finishGroups(sc *searchScratch) float32 {
	p := &ix.params
	n := float32(ix.liveChunks())
	norm := float32(0)
	for i := range sc.groups {
		g := &sc.groups[i]
		df := min(g.df, n)
		g.idf = float32(math.Log(1 + float64((n-df+0.5)/(df+0.5))))
		norm += g.w * g.idf
		g.minor = df > float32(p.minorMin) && (df > p.commonDF*n && !g.inQuery || df > p.commonAll*n)
	}
	slices.SortStableFunc(sc.groups, func(a, b qgroup) int { return cmp.Compare(b.w*b.idf, a.w*a.idf) })
	return norm
}

// accumulateGroup adds one group's BM25 contribution to the chunks holding
// any of its translations, its frequency in a chunk being the weighted sum
// of theirs. A minor group only adds to the chunks other terms found, as a
// minor term does (see accumulate).
func (ix *Index) accumulateGroup(sc *searchScratch, g *qgroup, ka, kb float32) {
	p := &ix.params
	acc, docLen, gtf := sc.acc, ix.docLen, sc.gtf
	only := g.minor && len(sc.touched) > 0
	sc.gdocs = sc.gdocs[:0]
	add := func(d int32, tf, w float32) {
		if gtf[d] == 0 {
			sc.gdocs = append(sc.gdocs, d)
		}
		gtf[d] += w * tf
	}
	for _, m := range sc.members[g.first : g.first+g.n] {
		ids := sc.memberIDs[m.first : m.first+m.n]
		lead := &ix.terms[ids[0]]
		if only && len(sc.touched)*8 < len(lead.post) {
			for _, d := range sc.touched {
				if tf := ix.phraseTF(d, ids); tf > 0 {
					add(d, tf, m.p)
				}
			}
			continue
		}
		for _, v := range lead.post {
			d, tf := unpack(v)
			if docLen[d] < 0 || only && !sc.isFound(d) {
				continue
			}
			if len(ids) > 1 {
				tf = min(tf, ix.phraseTF(d, ids[1:]))
				if tf == 0 {
					continue
				}
			}
			add(d, tf, m.p)
		}
	}
	weight := g.w * g.idf * (p.k1 + 1)
	for _, d := range sc.gdocs {
		tf := gtf[d]
		gtf[d] = 0
		if acc[d] == 0 {
			sc.touch(d)
		}
		acc[d] += weight * tf / (tf + ka + kb*float32(docLen[d]))
	}
}

// phraseTF is the least frequency in chunk d of the terms ids, 0 when one
// is absent.
func (ix *Index) phraseTF(d int32, ids []int32) float32 {
	tf := float32(tfMax)
	for _, id := range ids {
		tf = min(tf, ix.docMeta[d].tfOf(id))
		if tf == 0 {
			return 0
		}
	}
	return tf
}

// groupMatch returns the first (best) translation of group g the chunk
// marked in sc.inDoc holds, or nil.
func (sc *searchScratch) groupMatch(g *qgroup) *gmember {
	for i := range sc.members[g.first : g.first+g.n] {
		m := &sc.members[g.first+int32(i)]
		all := true
		for _, id := range sc.memberIDs[m.first : m.first+m.n] {
			if sc.inDoc[id] != sc.stamp {
				all = false
				break
			}
		}
		if all {
			return m
		}
	}
	return nil
}

// surface returns the word of text that the tokenizer turns into term, as
// written there, or term itself when none does.
func (sc *searchScratch) surface(text, term string) string {
	found := term
	done := false
	sc.tok.Each(text, func(t []byte, _ analysis.Class, start, end int) {
		if !done && string(t) == term {
			found, done = text[start:end], true
		}
	})
	return found
}
