package memory_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/memory"
)

// englishMemories and chineseMemories are memories of different topics,
// the same in both languages; each test query shares no word with the one
// it should find.
var (
	englishMemories = []string{
		"Bart felt lonely at school and cried after class.",
		"We pushed the new build to the production server on Friday.",
		"The car needs new tyres before the winter trip.",
		"She planted tomatoes and basil in the garden.",
		"I paid the electricity bill and the rent.",
		"He bought running shoes for the marathon.",
		"We swam in the sea at the weekend.",
		"I bought a new laptop.",
	}
	chineseMemories = []string{
		"我对花生过敏，不能吃花生酱。",
		"周末我们去海边游泳了。",
		"孩子在学校觉得孤单，常常哭。",
		"我买了一台新的笔记本电脑。",
		"明天要交房租和水电费。",
		"她在花园里种了番茄。",
		"汽车需要换新轮胎。",
		"他为马拉松买了跑鞋。",
	}
)

// semanticStore is an in-memory store of texts whose vectors are ready,
// with emb as its embedder (nil: words only).
func semanticStore(t *testing.T, emb memory.Embedder, texts []string) (*memory.Store, []memory.Entry) {
	t.Helper()
	s := memory.NewInMemory(memory.Options{Embedder: emb})
	var es []memory.Entry
	for _, text := range texts {
		es = append(es, mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: text}))
	}
	waitSemantic(t, s)
	return s, es
}

func waitSemantic(t *testing.T, s *memory.Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitSemantic(ctx); err != nil {
		t.Fatalf("WaitSemantic: %v", err)
	}
}

// rankOf is the rank of the entry with text want among hits, -1 if absent.
func rankOf(hits []memory.Hit, want string) int {
	return slices.IndexFunc(hits, func(h memory.Hit) bool { return h.Entry.Text == want })
}

func TestRecallFindsByMeaning(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	cases := []struct {
		name   string
		memory []string
		query  string
		want   string
	}{
		{"english", englishMemories, "my kid is sad", englishMemories[0]},
		{"english garden", englishMemories, "vegetables in the backyard", englishMemories[3]},
		{"chinese", chineseMemories, "小朋友伤心", chineseMemories[2]},
		{"chinese beach", chineseMemories, "沙滩", chineseMemories[1]},
		{"english query, chinese memory", chineseMemories, "my kid is sad", chineseMemories[2]},
		{"chinese query, english memory", englishMemories, "电脑坏了", englishMemories[7]},
	}
	stores := map[bool]map[string]*memory.Store{false: {}, true: {}}
	for _, texts := range [][]string{englishMemories, chineseMemories} {
		stores[false][texts[0]], _ = semanticStore(t, nil, texts)
		stores[true][texts[0]], _ = semanticStore(t, memory.Builtin(), texts)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := memory.RecallOptions{K: 3, NoCutoff: true}
			if r := rankOf(stores[false][c.memory[0]].Recall(c.query, nil, opts), c.want); r >= 0 {
				t.Fatalf("words alone find %q for %q at %d: not a test of meaning", c.want, c.query, r)
			}
			hits := stores[true][c.memory[0]].Recall(c.query, nil, opts)
			if r := rankOf(hits, c.want); r != 0 {
				t.Fatalf("Recall(%q) = %v, want %q first", c.query, hitTexts(hits), c.want)
			}
			if hits[0].Meaning <= 0 || len(hits[0].Terms) != 0 {
				t.Errorf("hit %q: Meaning %v, Terms %v; want a cosine and no words", hits[0].Entry.Text, hits[0].Meaning, hits[0].Terms)
			}
		})
	}
}

func hitTexts(hits []memory.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Entry.Text
	}
	return out
}

func TestFusionKeepsStrongWordMatch(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	texts := append(slices.Clone(englishMemories),
		"The kids were sad and lonely all week.",
		"My son was unhappy and cried at school.",
		"The children felt miserable after the move.",
		"Zorbulax is the password manager we chose.",
	)
	s, _ := semanticStore(t, memory.Builtin(), texts)
	// Two memories match a word each, equally rare; three others mean
	// what one of them says. The best match of the words stays among the
	// best two, whatever the meaning adds to the others.
	for _, opts := range []memory.RecallOptions{{K: 2}, {K: 2, NoCutoff: true}} {
		hits := s.Recall("is zorbulax sad", nil, opts)
		if rankOf(hits, texts[len(texts)-1]) < 0 {
			t.Errorf("NoCutoff %v: Recall = %v, want the Zorbulax memory among them", opts.NoCutoff, hitTexts(hits))
		}
	}
}

func TestSemanticFollowsChanges(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	s, es := semanticStore(t, memory.Builtin(), englishMemories)
	opts := memory.RecallOptions{K: 1, NoCutoff: true}
	const query = "my kid is sad"
	text := "The cat sleeps on the warm sofa all afternoon."
	if _, err := s.Update(es[0].ID, memory.Change{Text: &text}); err != nil {
		t.Fatal(err)
	}
	waitSemantic(t, s)
	if hits := s.Recall("a kitten napping on the couch", nil, opts); rankOf(hits, text) != 0 {
		t.Errorf("after Update: Recall = %v, want the new text", hitTexts(hits))
	}
	if hits := s.Recall(query, nil, opts); rankOf(hits, englishMemories[0]) >= 0 {
		t.Errorf("after Update: the old text is still found: %v", hitTexts(hits))
	}
	if err := s.Remove(es[3].ID); err != nil {
		t.Fatal(err)
	}
	waitSemantic(t, s)
	for _, h := range s.Recall("vegetables in the backyard", nil, memory.RecallOptions{K: 20, NoCutoff: true}) {
		if h.Entry.ID == es[3].ID {
			t.Errorf("removed entry %s still recalled", h.Entry.ID)
		}
	}
	back := mustAdd(t, s, memory.Entry{Kind: memory.KindFact, Text: "Our daughter feels lonely and cries at night."})
	waitSemantic(t, s)
	if hits := s.Recall(query, nil, opts); len(hits) == 0 || hits[0].Entry.ID != back.ID {
		t.Errorf("after Add: Recall = %v, want %q", hitTexts(hits), back.Text)
	}
}

func TestSetEmbedderOff(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	s, _ := semanticStore(t, memory.Builtin(), englishMemories)
	s.SetEmbedder(nil)
	waitSemantic(t, s)
	if hits := s.Recall("my kid is sad", nil, memory.RecallOptions{K: 3, NoCutoff: true}); len(hits) != 0 {
		t.Errorf("without an embedder Recall = %v, want nothing (no word in common)", hitTexts(hits))
	}
}

func TestSearchByMeaningOnlyPastTwoWords(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	s, _ := semanticStore(t, memory.Builtin(), englishMemories)
	if hits := s.Search("kid sad", 3); len(hits) != 0 {
		t.Errorf("Search(kid sad) = %v, want nothing: two words are searched by their words", hitTexts(hits))
	}
	hits := s.Search("my kid is very sad", 3)
	if len(hits) == 0 || hits[0].Entry.Text != englishMemories[0] || hits[0].Meaning < 0.5 {
		t.Errorf("Search(my kid is very sad) = %v, want %q by meaning", hitTexts(hits), englishMemories[0])
	}
}
