package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"engram/memory"
)

// searchResult is a memory_search result line as memtools writes it.
func searchResult(id, text string) string {
	b, _ := json.Marshal(map[string]string{"id": id, "text": memory.Defuse(text)})
	return string(b)
}

// loadTwo opens two stores on one folder (two processes) with a chat that
// both hold: a question and an answer whose search result shows the
// memories, and a branch (an earlier answer) that shows them too.
func loadTwo(t *testing.T, mems ...memory.Entry) (a, b *Store, id string) {
	t.Helper()
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	a, err := Load(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	info, err := a.Create(true, "")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range mems {
		lines = append(lines, searchResult(m.ID, m.Text))
	}
	rec := ToolRecord{CallID: "c1", Name: "memory_search", Args: `{"query":"x"}`, Result: strings.Join(lines, "\n")}
	err = a.Update(info.ID, func(c *Chat) bool {
		c.Messages = []Message{{ID: "q", Role: RoleUser, Text: "what do you know?"},
			{ID: "old", ReplyTo: "q", Role: RoleAssistant, Tools: []ToolRecord{rec}}}
		c.BranchOff(1, now())
		c.Messages = append(c.Messages, Message{ID: "new", ReplyTo: "q", Role: RoleAssistant,
			Tools: []ToolRecord{rec, {CallID: "c2", Name: "memory_write", Args: `{"text":"` + mems[0].Text + `"}`,
				Result: "Already remembered as " + mems[0].ID + " (fact): " + mems[0].Text}}})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err = Load(dir, now); err != nil {
		t.Fatal(err)
	}
	return a, b, info.ID
}

// holding lists those of texts that the chat file or a store's copy holds.
func holding(t *testing.T, cs *Store, id string, texts ...string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cs.dir, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := json.Marshal(c)
	var out []string
	for _, s := range texts {
		if strings.Contains(string(data), s) || strings.Contains(string(mem), s) {
			out = append(out, s)
		}
	}
	return out
}

func TestScrubSurvivesOlderCopies(t *testing.T) {
	x := memory.Entry{ID: "mx", Text: `Lives at "Elmstreet" <12> & sons`}
	y := memory.Entry{ID: "my", Text: "Plays the theorbo on Sundays."}
	a, b, id := loadTwo(t, x, y)

	// Each store forgets a different memory, knowing nothing of the
	// other's; whoever writes after, neither text comes back.
	if err := a.Scrub(x); err != nil {
		t.Fatal(err)
	}
	if got := holding(t, a, id, "Elmstreet"); len(got) > 0 {
		t.Fatalf("after Scrub the chat holds %q", got)
	}
	if err := b.Scrub(y); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{a, b} {
		if err := s.Update(id, func(c *Chat) bool { c.Title = "again"; return true }); err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range map[string]*Store{"a": a, "b": b} {
		if got := holding(t, s, id, "Elmstreet", "theorbo"); len(got) > 0 {
			t.Errorf("store %s: the chat holds %q", name, got)
		}
	}
	c, _ := a.Get(id)
	if want := []string{"mx", "my"}; len(c.Scrubbed) != 2 || !strings.Contains(strings.Join(c.Scrubbed, " "), "mx") ||
		!strings.Contains(strings.Join(c.Scrubbed, " "), "my") {
		t.Errorf("Scrubbed = %q, want %q", c.Scrubbed, want)
	}
	got := c.Messages[1].Tools[0].Result
	if !strings.Contains(got, Placeholder("mx")) || !strings.Contains(got, Placeholder("my")) {
		t.Errorf("the search result became %q", got)
	}
	// The result lines stay JSON, with their ids.
	for _, line := range strings.Split(got, "\n") {
		var l map[string]string
		if err := json.Unmarshal([]byte(line), &l); err != nil || l["id"] == "" {
			t.Errorf("line %q: %v", line, err)
		}
	}
	if args := c.Messages[1].Tools[1].Args; args != `{"text":"`+Placeholder("mx")+`"}` {
		t.Errorf("the tool's arguments became %q", args)
	}
}

// TestScrubByIDOfANewMessage: a writer that saw a memory before it was
// forgotten adds a message whose search result shows it; the chat lists the
// memory as scrubbed, so the merge takes the text out.
func TestScrubByIDOfANewMessage(t *testing.T) {
	x := memory.Entry{ID: "mx", Text: "Keeps bees in the garden."}
	a, b, id := loadTwo(t, x)
	if err := a.Scrub(x); err != nil {
		t.Fatal(err)
	}
	err := b.Update(id, func(c *Chat) bool {
		c.Messages = append(c.Messages, Message{ID: "late", Role: RoleAssistant,
			Tools: []ToolRecord{{CallID: "c9", Name: "memory_search", Result: searchResult("mx", x.Text)}}})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := holding(t, b, id, "bees"); len(got) > 0 {
		t.Errorf("the chat holds %q", got)
	}
}

// TestScrubOldFilesAndChatsOfOthers: a chat file without a scrubbed list
// (written before there was one) and one the store never loaded are
// scrubbed too; a chat that holds none of the texts is not rewritten.
func TestScrubOldFilesAndChatsOfOthers(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	cs, err := Load(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	old := `{"id":"old","title":"t","created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:04:05Z",
"auto_recall":true,"messages":[{"role":"assistant","text":"a","time":"2026-01-02T03:04:05Z",
"tools":[{"call_id":"c","name":"memory_search","args":"{}","result":"- id=mx Likes green figs."}]}]}`
	plain := `{"id":"plain","title":"t","created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:04:05Z",
"auto_recall":true,"messages":[{"role":"user","text":"hi","time":"2026-01-02T03:04:05Z"}]}`
	for name, body := range map[string]string{"old": old, "plain": plain} {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.Scrub(memory.Entry{ID: "mx", Text: "Likes green figs."}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "old.json"))
	if strings.Contains(string(b), "figs") || !strings.Contains(string(b), Placeholder("mx")) {
		t.Errorf("old.json:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plain.json")); string(b) != plain {
		t.Errorf("plain.json was rewritten:\n%s", b)
	}
	if _, err := cs.Get("old"); err == nil {
		t.Error("scrubbing a chat file loaded it into the store")
	}
}

func TestFormsOf(t *testing.T) {
	forms := formsOf([]memory.Entry{{ID: "m1", Text: " Say \"hi\" & <b> \n"}, {ID: "m2", Text: "ab"}, {ID: "m3"}})
	var texts []string
	for _, f := range forms {
		if f.id != "m1" {
			t.Errorf("form of %s: %q (too short or empty)", f.id, f.text)
		}
		texts = append(texts, f.text)
	}
	for _, want := range []string{` Say "hi" & <b> ` + "\n", `Say "hi" & <b>`, `Say \"hi\" & <b>`, `Say \"hi\" \u0026 \u003cb\u003e`} {
		if !strings.Contains("\x00"+strings.Join(texts, "\x00")+"\x00", "\x00"+want+"\x00") {
			t.Errorf("no form %q in %q", want, texts)
		}
	}
	for i := 1; i < len(forms); i++ {
		if len(forms[i].text) > len(forms[i-1].text) {
			t.Errorf("forms not longest first: %q", texts)
		}
	}
}
