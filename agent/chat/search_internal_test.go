package chat

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzPhraseAt checks that a phrase match's offset is in the text, on a rune
// boundary, and that its snippet is valid text.
func FuzzPhraseAt(f *testing.F) {
	f.Add("How do I deploy the frontend?", "deploy")
	f.Add("部署脚本怎么改？部署", "脚本")
	f.Add("İstanbul ǅ straße", "straße")
	f.Add(strings.Repeat("long text ", 40)+"needle"+strings.Repeat(" tail", 40), "NEEDLE")
	f.Fuzz(func(t *testing.T, text, query string) {
		if !utf8.ValidString(text) || !utf8.ValidString(query) {
			return
		}
		phrase := strings.ToLower(strings.Join(strings.Fields(query), " "))
		if phrase == "" {
			return
		}
		at, ok := phraseAt(strings.ToLower(text), text, phrase)
		if !ok {
			return
		}
		if at < 0 || at > len(text) || at < len(text) && !utf8.RuneStart(text[at]) {
			t.Fatalf("offset %d in %q", at, text)
		}
		if s := snippet(text, at); !utf8.ValidString(s) {
			t.Fatalf("snippet %q is not valid text", s)
		}
	})
}

// FuzzLocate checks that where a ranked hit's snippet starts is in the text,
// on a rune boundary.
func FuzzLocate(f *testing.F) {
	f.Add("I run every morning", 0, "running")
	f.Add("我每天早上喝咖啡", 2, "coffee → 咖啡")
	f.Add("ǅ straße İstanbul", 1, "STRASSE")
	f.Fuzz(func(t *testing.T, text string, offset int, term string) {
		if !utf8.ValidString(text) || offset < 0 {
			return
		}
		at := locate(text, offset, []string{term})
		if at < 0 || at > len(text) || at < len(text) && !utf8.RuneStart(text[at]) {
			t.Fatalf("offset %d in %q", at, text)
		}
	})
}

// searchStore is a store with chats of the given messages (texts of users
// and answers in turn), the first chat the oldest; it returns their IDs.
func searchStore(t testing.TB, chats ...[]string) (*Store, []string) {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cs, err := Load(t.TempDir(), func() time.Time { now = now.Add(time.Second); return now })
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, texts := range chats {
		info, err := cs.Create(false, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.Update(info.ID, func(c *Chat) bool {
			c.Title = fmt.Sprintf("Chat %d", i)
			for j, text := range texts {
				role := RoleUser
				if j%2 == 1 {
					role = RoleAssistant
				}
				c.Messages = append(c.Messages, Message{ID: fmt.Sprintf("m%d", j), Role: role, Text: text})
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	return cs, ids
}

// found is what a search found, as "chat index/message ID: snippet".
func found(ms []Match, ids []string) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%d/%s: %s", slices.Index(ids, m.ChatID), m.MsgID, m.Snippet))
	}
	return out
}

func TestSearchRanks(t *testing.T) {
	cs, ids := searchStore(t,
		[]string{"I run every morning before work.", "Good habit."},
		[]string{"我昨天在公司附近的小店买了一个面包和一杯热咖啡。", "听起来不错。"},
		[]string{"How do I deploy the frontend and the backend with one deploy script?", "Use make."},
		[]string{"The weather in Paris is lovely in spring.", "It is."},
		[]string{"Which frontend framework should I learn first?", "Try Svelte."},
		[]string{"I drink too much cola at night.", "Try tea."},
	)
	tests := []struct {
		query string
		want  []string // in order
	}{
		// Stemming: "running" finds "run".
		{"running", []string{"0/m0: I run every morning before work."}},
		// A two-character Chinese word inside a longer sentence, and two of
		// them in another order than the text's.
		{"面包", []string{"1/m0: 我昨天在公司附近的小店买了一个面包和一杯热咖啡。"}},
		{"咖啡 面包", []string{"1/m0: 我昨天在公司附近的小店买了一个面包和一杯热咖啡。"}},
		// An English word finds its Chinese translation through the
		// lexicon.
		{"coffee", []string{"1/m0: 我昨天在公司附近的小店买了一个面包和一杯热咖啡。"}},
		// Relevance, not recency: the message with both words first.
		{"deploy frontend", []string{
			"2/m0: How do I deploy the frontend and the backend with one deploy script?",
			"4/m0: Which frontend framework should I learn first?"}},
		// A phrase the text holds as typed comes first, whatever the rank.
		{"framework should", []string{"4/m0: Which frontend framework should I learn first?"}},
		// Nothing related: nothing listed.
		{"bicycle", nil},
	}
	for _, tt := range tests {
		if got := found(cs.Search(tt.query, 10), ids); !slices.Equal(got, tt.want) {
			t.Errorf("Search(%q) =\n  %q\nwant\n  %q", tt.query, got, tt.want)
		}
	}
	if got := cs.Search("weather", 10); len(got) != 1 || got[0].ChatID != ids[3] {
		t.Errorf("Search(weather) = %+v", got)
	}
}

// The snippet of a ranked hit starts near the word that matched, even when
// the index matched it stemmed or translated.
func TestSearchSnippet(t *testing.T) {
	long := strings.Repeat("Nothing to see in this part of the message. ", 8)
	cs, ids := searchStore(t, []string{long + "Then we were running late.", long + "后来我们喝了咖啡。"})
	got := found(cs.Search("run", 10), ids)
	if len(got) != 1 || !strings.HasPrefix(got[0], "0/m0: …") || !strings.Contains(got[0], "running late") {
		t.Errorf("Search(run) = %q", got)
	}
	got = found(cs.Search("coffee", 10), ids)
	if len(got) != 1 || !strings.HasPrefix(got[0], "0/m1: …") || !strings.Contains(got[0], "咖啡") {
		t.Errorf("Search(coffee) = %q", got)
	}
}

// The index follows the chats: a message added, a title changed, a chat
// removed, a chat file another process wrote.
func TestSearchFollowsChanges(t *testing.T) {
	cs, ids := searchStore(t, []string{"Tabs or spaces?"}, []string{"Lunch ideas"})
	if got := cs.Search("sandwich", 10); got != nil {
		t.Fatalf("before: %+v", got)
	}
	if err := cs.Update(ids[1], func(c *Chat) bool {
		c.Messages = append(c.Messages, Message{ID: "m9", Role: RoleAssistant, Text: "A sandwich with cheese."})
		c.Title = "Sandwiches"
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got := found(cs.Search("sandwich", 10), ids); !slices.Equal(got, []string{"1/: ", "1/m9: A sandwich with cheese."}) {
		t.Errorf("after a message: %q", got)
	}
	if err := cs.Remove(ids[1]); err != nil {
		t.Fatal(err)
	}
	if got := cs.Search("sandwich", 10); got != nil {
		t.Errorf("after removal: %+v", got)
	}
	other, err := Load(cs.dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Update(ids[0], func(c *Chat) bool {
		c.Messages = append(c.Messages, Message{ID: "m5", Role: RoleUser, Text: "Indentation with tabs"})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	fresh, err := Load(cs.dir, time.Now) // its chats are partial: read from their files
	if err != nil {
		t.Fatal(err)
	}
	_ = fresh.Search("tabs", 10)
	if err := other.Update(ids[0], func(c *Chat) bool {
		c.Messages = append(c.Messages, Message{ID: "m6", Role: RoleUser, Text: "Indentation of YAML"})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got := found(fresh.Search("yaml", 10), ids); !slices.Equal(got, []string{"0/m6: Indentation of YAML"}) {
		t.Errorf("after another writer: %q", got)
	}
}
