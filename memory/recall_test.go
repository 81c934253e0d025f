package memory_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

var recallT0 = time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)

// newIndex indexes texts as entries m0, m1, … of the given kind, one minute
// apart so that none are neighbours of the same session.
func newTestIndex(kind memory.Kind, texts ...string) *memory.EntryIndex {
	ix := memory.NewEntryIndex()
	for i, text := range texts {
		c := recallT0.Add(time.Duration(i) * time.Minute)
		ix.Put(memory.Entry{ID: fmt.Sprintf("m%d", i), Kind: kind, Text: text, Created: c, Updated: c})
	}
	return ix
}

func hitIDs(hits []memory.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Entry.ID
	}
	return out
}

func TestSearchFinds(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact,
		"The user painted a sunset over the lake last summer.",         // m0
		"Project Bluebird 计划在三月发布第一个版本。",                               // m1
		"Set MAX_HISTORY_CHARS to 4000 in the agent config.",           // m2
		"用户喜欢用 Go 写命令行工具，不喜欢 Python。",                                  // m3
		"The staging server runs on port 8443 behind nginx.",           // m4
		"Call maxRetryCount before giving up on the upstream request.", // m5
		"周末去爬山，天气很好。",                                                  // m6
		"Prefers dark mode in every editor.",                           // m7
	)
	tests := []struct {
		query string
		want  string
	}{
		{"what did I paint?", "m0"},           // stemming: paint / painted
		{"paintings", "m0"},                   // plural and -ing
		{"Bluebird 什么时候发布", "m1"},             // mixed English and Chinese
		{"bluebird release", "m1"},            // the English word alone
		{"发布时间", "m1"},                        // Chinese bigram
		{"history chars limit", "m2"},         // identifier parts
		{"MAX_HISTORY_CHARS", "m2"},           // identifier whole
		{"retry count", "m5"},                 // camelCase parts
		{"用 Go 写工具", "m3"},                    // mixed, short English word
		{"which port does staging use", "m4"}, // number and words
		{"爬山", "m6"},                          // CJK only
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits := ix.Search(tt.query, nil, memory.RecallOptions{})
			if len(hits) == 0 || hits[0].Entry.ID != tt.want {
				t.Fatalf("Search(%q) = %v, want %s first", tt.query, hitIDs(hits), tt.want)
			}
			if len(hits[0].Terms) == 0 {
				t.Errorf("Search(%q): hit has no matched terms", tt.query)
			}
		})
	}
}

func TestSearchTermsAreWordsTyped(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact,
		"Project Bluebird 计划在三月发布第一个版本。",
		"Set MAX_HISTORY_CHARS to 4000 in the agent config.")
	hits := ix.Search("When is Bluebird 发布会?", nil, memory.RecallOptions{})
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	if got := hits[0].Terms; !slices.Contains(got, "Bluebird") || !slices.Contains(got, "发布") {
		t.Errorf("Terms = %q, want the query words Bluebird and 发布", got)
	}
	hits = ix.Search("what is MAX_HISTORY_CHARS set to", nil, memory.RecallOptions{})
	if len(hits) == 0 || !slices.Contains(hits[0].Terms, "MAX_HISTORY_CHARS") {
		t.Errorf("Terms = %v, want the identifier as typed", hits)
	}
}

// A question in one language recalls the memory kept in the other, with the
// app's defaults (cut-off on), and Terms says which word matched what.
func TestSearchCrossLingual(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact,
		"The user is allergic to peanuts.",             // m0
		"The user runs the staging server on Fridays.", // m1
		"用户每天早上喝一杯咖啡。",                                 // m2
		"用户周末喜欢去山里徒步。",                                 // m3
	)
	for _, tc := range []struct{ query, want, term string }{
		{"点外卖要注意什么？我对花生过敏", "m0", "花生 → peanuts"},
		{"Does the user drink coffee in the morning?", "m2", "coffee → 咖啡"},
		{"我對花生過敏", "m0", "過敏 → allergic"}, // traditional, shown as typed
	} {
		hits := ix.Search(tc.query, nil, memory.RecallOptions{})
		if len(hits) == 0 || hits[0].Entry.ID != tc.want || !slices.Contains(hits[0].Terms, tc.term) {
			t.Errorf("Search(%q) = %+v, want %s first, matched by %q", tc.query, hits, tc.want, tc.term)
		}
	}
}

func TestSearchKindLabels(t *testing.T) {
	t.Parallel()
	ix := memory.NewEntryIndex()
	ix.Put(memory.Entry{ID: "p", Kind: memory.KindPreference, Text: "Answers in short bullet points.", Created: recallT0})
	ix.Put(memory.Entry{ID: "c", Kind: memory.KindCorrection, Text: "The API base path is /v2, not /v1.", Created: recallT0.Add(time.Hour)})
	ix.Put(memory.Entry{ID: "l", Kind: memory.KindLesson, Text: "Run the race detector before merging.", Created: recallT0.Add(2 * time.Hour)})
	ix.Put(memory.Entry{ID: "f", Kind: memory.KindFact, Text: "The office is in Lyon.", Created: recallT0.Add(3 * time.Hour)})
	for query, want := range map[string]string{
		"preferences": "p", "偏好": "p", "correction": "c", "纠正": "c",
		"lessons": "l", "经验": "l", "教训": "l", "facts": "f", "事实": "f",
	} {
		hits := ix.Search(query, nil, memory.RecallOptions{})
		if len(hits) != 1 || hits[0].Entry.ID != want {
			t.Errorf("Search(%q) = %v, want only %s", query, hitIDs(hits), want)
		}
	}
}

func TestSearchFollowUpUsesHistory(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact,
		"Deploys go through the blue-green pipeline; never push to prod directly.", // m0
		"The user's cat is called Miso.",                                           // m1
		"数据库迁移要先在预发布环境跑一遍，再上生产。",                                                   // m2
		"User prefers pytest over unittest for Python tests.",                      // m3
	)
	tests := []struct {
		name    string
		query   string
		history []string
		want    string
	}{
		{"english vague", "ok, do that", []string{"how should I deploy the new release to prod?"}, "m0"},
		{"chinese vague", "继续", []string{"帮我写一个数据库迁移脚本"}, "m2"},
		{"newest history counts most", "yes please",
			[]string{"tell me about my cat", "write the python tests for the parser"}, "m3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if hits := ix.Search(tt.query, nil, memory.RecallOptions{}); len(hits) != 0 {
				t.Fatalf("%q alone recalls %v; the test needs a vague message", tt.query, hitIDs(hits))
			}
			hits := ix.Search(tt.query, tt.history, memory.RecallOptions{})
			if len(hits) == 0 || hits[0].Entry.ID != tt.want {
				t.Fatalf("Search(%q, %q) = %v, want %s first", tt.query, tt.history, hitIDs(hits), tt.want)
			}
		})
	}
}

func TestSearchCurrentMessageOutweighsHistory(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact,
		"The user's cat is called Miso.",
		"The user's dog is called Biscuit.")
	hits := ix.Search("what is my dog called", []string{"tell me about my cat"}, memory.RecallOptions{})
	if len(hits) == 0 || hits[0].Entry.ID != "m1" {
		t.Fatalf("got %v, want the dog (current message) before the cat (history)", hitIDs(hits))
	}
}

func TestSearchCutoff(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact,
		"The user prefers tabs over spaces in Go code.",
		"The user's sister lives in Osaka and works as a nurse.",
		"Weekly report is due every Friday at noon.",
		"The user is allergic to peanuts.")
	for _, q := range []string{"hello there", "what's the capital of Peru, and its population and main exports?", "继续"} {
		if hits := ix.Search(q, nil, memory.RecallOptions{}); len(hits) != 0 {
			t.Errorf("Search(%q) injects %v, want nothing", q, hitIDs(hits))
		}
	}
	// A weak partial match is dropped with the cut-off and kept without it.
	q := "translate this nurse training brochure about hospital shifts into Spanish for the clinic staff"
	if hits := ix.Search(q, nil, memory.RecallOptions{}); len(hits) != 0 {
		t.Errorf("Search(%q) = %v, want nothing under the cut-off", q, hitIDs(hits))
	}
	if hits := ix.Search(q, nil, memory.RecallOptions{NoCutoff: true}); len(hits) == 0 || hits[0].Entry.ID != "m1" {
		t.Errorf("Search(%q, NoCutoff) = %v, want m1 first", q, hitIDs(hits))
	}
}

func TestSearchCutoffCommonWordOnly(t *testing.T) {
	t.Parallel()
	var texts []string
	for i := range 200 {
		texts = append(texts, fmt.Sprintf("The user keeps note %d about topic%d.", i, i))
	}
	ix := newTestIndex(memory.KindFact, texts...)
	q := "the user asks about quantum chromodynamics lattice simulations"
	if hits := ix.Search(q, nil, memory.RecallOptions{}); len(hits) != 0 {
		t.Errorf("a match on the common word alone injects %v", hitIDs(hits))
	}
	if hits := ix.Search("what is topic42 about", nil, memory.RecallOptions{}); len(hits) != 1 || hits[0].Entry.ID != "m42" {
		t.Errorf("a specific match gives %v, want m42 alone", hitIDs(hits))
	}
}

func TestSearchSessionContext(t *testing.T) {
	t.Parallel()
	ix := memory.NewEntryIndex()
	session := recallT0
	for i, text := range []string{
		"Melanie: I finished that novel you lent me last week.",
		"Caroline: What did you take away from the book?",
		"Melanie: That tough times pass and that hope is worth holding on to.",
		"Caroline: So glad to hear it!",
	} {
		ix.Put(memory.Entry{ID: fmt.Sprint("s", i), Kind: memory.KindFact, Text: text, Created: session})
	}
	ix.Put(memory.Entry{ID: "other", Kind: memory.KindFact, Text: "Melanie: We took the kids to the beach.",
		Created: session.Add(48 * time.Hour)})
	hits := ix.Search("What did Caroline's friend take away from the book?", nil, memory.RecallOptions{K: 3, NoCutoff: true})
	if got := hitIDs(hits); len(got) < 2 || got[0] != "s1" || !slices.Contains(got, "s2") {
		t.Errorf("got %v, want the question s1 first and its answer s2, saved next to it, among the hits", got)
	}
}

func TestSearchLongPastedMessage(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact, "The release train leaves every second Tuesday.", "Lunch is at noon.")
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "word%d 词%d ", i, i)
	}
	b.WriteString("when does the release train leave?")
	hits := ix.Search(b.String(), []string{b.String()}, memory.RecallOptions{NoCutoff: true})
	if len(hits) == 0 || hits[0].Entry.ID != "m0" {
		t.Errorf("got %v, want m0 first", hitIDs(hits))
	}
}

func TestSearchK(t *testing.T) {
	t.Parallel()
	var texts []string
	for i := range 30 {
		texts = append(texts, fmt.Sprintf("note %d about the deploy pipeline", i))
	}
	ix := newTestIndex(memory.KindFact, texts...)
	if got := len(ix.Search("deploy pipeline", nil, memory.RecallOptions{})); got != memory.DefaultTopK {
		t.Errorf("default K gives %d hits, want %d", got, memory.DefaultTopK)
	}
	if got := len(ix.Search("deploy pipeline", nil, memory.RecallOptions{K: 12, NoCutoff: true})); got != 12 {
		t.Errorf("K 12 gives %d hits", got)
	}
}

func TestSearchLongEntryChunks(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "Paragraph %d talks about general matters of the project. ", i)
	}
	b.WriteString("The signing key rotates every ninety days. ")
	for i := range 10 {
		fmt.Fprintf(&b, "Closing remark %d. ", i)
	}
	long := b.String()
	ix := newTestIndex(memory.KindFact, long, "Short note about the project.")
	hits := ix.Search("signing key rotation", nil, memory.RecallOptions{})
	if len(hits) != 1 || hits[0].Entry.ID != "m0" {
		t.Fatalf("got %v, want the long entry once", hitIDs(hits))
	}
	h := hits[0]
	if h.Chunk == 0 || h.Offset == 0 {
		t.Errorf("hit at chunk %d offset %d, want the later chunk holding the key", h.Chunk, h.Offset)
	}
	at := strings.Index(long, "signing key")
	if runes := []rune(long); h.Offset > len([]rune(long[:at])) || len([]rune(long[:at]))-h.Offset >= memory.ChunkRunes || h.Offset >= len(runes) {
		t.Errorf("offset %d does not start the chunk holding rune %d", h.Offset, len([]rune(long[:at])))
	}
}

func TestSearchRanksExtras(t *testing.T) {
	t.Parallel()
	ix := memory.NewEntryIndex()
	same := "Use the staging cluster for load tests."
	ix.Put(memory.Entry{ID: "a", Kind: memory.KindFact, Text: same, Created: recallT0})
	ix.Put(memory.Entry{ID: "b", Kind: memory.KindFact, Text: same + " ", Created: recallT0.Add(time.Hour), Pinned: true})
	ix.Put(memory.Entry{ID: "c", Kind: memory.KindFact, Text: same + "  ", Created: recallT0.Add(2 * time.Hour),
		LastUsed: recallT0.Add(2 * time.Hour), Uses: 5})
	hits := ix.Search("staging load tests", nil, memory.RecallOptions{Now: recallT0.Add(3 * time.Hour)})
	if got := hitIDs(hits); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Errorf("got %v, want pinned, then recently used, then the plain one", got)
	}
}

func TestSearchSameTextOnce(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact, "Backups run nightly at 02:00.", "Backups run nightly at 02:00.", "Backups are kept for 30 days.")
	hits := ix.Search("nightly backups", nil, memory.RecallOptions{NoCutoff: true, K: 10})
	if got := hitIDs(hits); !slices.Equal(got, []string{"m0", "m2"}) {
		t.Errorf("got %v, want the duplicate text once", got)
	}
}

func TestPutReplacesAndDeleteRemoves(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact, "The build uses make.", "Tests run with go test.")
	ix.Put(memory.Entry{ID: "m0", Kind: memory.KindFact, Text: "The build uses bazel now.", Created: recallT0})
	if hits := ix.Search("make", nil, memory.RecallOptions{}); len(hits) != 0 {
		t.Errorf("old text still found: %v", hitIDs(hits))
	}
	if hits := ix.Search("bazel", nil, memory.RecallOptions{}); len(hits) != 1 || hits[0].Entry.Text != "The build uses bazel now." {
		t.Errorf("new text not found: %v", hits)
	}
	ix.Put(memory.Entry{ID: "m1", Text: "Tests run with go test.", SupersededBy: "x"})
	ix.Delete("m0")
	ix.Delete("missing")
	if ix.Len() != 0 {
		t.Errorf("Len = %d after removing both, want 0", ix.Len())
	}
	if hits := ix.Search("bazel tests", nil, memory.RecallOptions{NoCutoff: true}); len(hits) != 0 {
		t.Errorf("removed entries found: %v", hitIDs(hits))
	}
}

func TestSearchEmpty(t *testing.T) {
	t.Parallel()
	ix := memory.NewEntryIndex()
	if hits := ix.Search("anything", []string{"at all"}, memory.RecallOptions{}); hits != nil {
		t.Errorf("empty index gives %v", hits)
	}
	ix = newTestIndex(memory.KindFact, "something")
	if hits := ix.Search("", nil, memory.RecallOptions{NoCutoff: true}); len(hits) != 0 {
		t.Errorf("empty query gives %v", hitIDs(hits))
	}
}

func TestSearchSaysWhichTermsCameFromHistory(t *testing.T) {
	t.Parallel()
	ix := newTestIndex(memory.KindFact, "Deploys go through the blue-green pipeline; never push to prod directly.")
	hits := ix.Search("push it to prod", []string{"how should I deploy the new release to prod?"}, memory.RecallOptions{})
	if len(hits) != 1 {
		t.Fatalf("got %v, want the deploy memory", hitIDs(hits))
	}
	h := hits[0]
	if !slices.Contains(h.Terms, "deploy") || !slices.Contains(h.Earlier, "deploy") {
		t.Errorf("Terms %q, Earlier %q: want deploy in both (only the history has it)", h.Terms, h.Earlier)
	}
	for _, w := range []string{"push", "prod"} {
		if !slices.Contains(h.Terms, w) || slices.Contains(h.Earlier, w) {
			t.Errorf("Terms %q, Earlier %q: want %s among the terms and not earlier (the message has it)", h.Terms, h.Earlier, w)
		}
	}
	if hits := ix.Search("push it to prod", nil, memory.RecallOptions{}); len(hits) != 1 || hits[0].Earlier != nil {
		t.Errorf("without history Earlier = %q", hits[0].Earlier)
	}
}
