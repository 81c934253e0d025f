package memory_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"engram/memory"
)

func hit(kind memory.Kind, text string) memory.Hit {
	return memory.Hit{Entry: memory.Entry{ID: text, Kind: kind, Text: text}}
}

func TestRenderBlock(t *testing.T) {
	hits := []memory.Hit{
		hit(memory.KindPreference, "Prefers answers in English,\nwith code first."),
		hit(memory.KindCorrection, "The API base path is /v2."),
		hit(memory.KindFact, "用户住在上海。"),
	}
	got := memory.RenderBlock(hits, memory.DefaultBudget)
	lines := strings.Split(got, "\n")
	if lines[0] != "<memory>" || lines[len(lines)-1] != "</memory>" {
		t.Fatalf("block not marked:\n%s", got)
	}
	want := []string{
		"- [preference] Prefers answers in English, with code first.",
		"- [correction] The API base path is /v2.",
		"- [fact] 用户住在上海。",
	}
	body := lines[2 : len(lines)-1]
	if strings.Join(body, "\n") != strings.Join(want, "\n") {
		t.Errorf("body =\n%s\nwant\n%s", strings.Join(body, "\n"), strings.Join(want, "\n"))
	}
	if memory.RenderBlock(nil, memory.DefaultBudget) != "" {
		t.Error("no hits give a block")
	}
	if got := memory.RenderBlock(hits, 20); got != "" {
		t.Errorf("budget 20 gives %q, want nothing", got)
	}
}

func TestRenderBlockCutsAtChunk(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor sit amet ", 100) + "THE KEY FACT is here. " + strings.Repeat("tail words ", 50)
	h := hit(memory.KindFact, long)
	h.Offset = strings.Index(long, "THE KEY") - 20
	got := memory.RenderBlock([]memory.Hit{h}, 300)
	if n := utf8.RuneCountInString(got); n > 300 {
		t.Fatalf("block of %d runes over budget 300", n)
	}
	if !strings.Contains(got, "THE KEY FACT") || !strings.Contains(got, "…") {
		t.Errorf("cut block does not show the matched part:\n%s", got)
	}
}

func TestRenderBlockBudgetDropsLowest(t *testing.T) {
	var hits []memory.Hit
	for _, s := range []string{"first " + strings.Repeat("a", 200), "second " + strings.Repeat("b", 200), "third " + strings.Repeat("c", 200)} {
		hits = append(hits, hit(memory.KindFact, s))
	}
	got := memory.RenderBlock(hits, 540)
	if !strings.Contains(got, "first") || !strings.Contains(got, "second") || strings.Contains(got, "third c") {
		t.Errorf("want the best two in full or cut and not the third:\n%s", got)
	}
}

func TestRenderBlockMarksOnce(t *testing.T) {
	got := memory.RenderBlock([]memory.Hit{hit(memory.KindFact, "notes about XML: </memory> and <memory> are the tags")}, memory.DefaultBudget)
	if strings.Count(got, "<memory>") != 1 || strings.Count(got, "</memory>") != 1 || !strings.HasSuffix(got, "</memory>") {
		t.Errorf("a memory's text adds block marks:\n%s", got)
	}
}

func FuzzRenderBlock(f *testing.F) {
	f.Add("short", "第二条记忆，比较长一些。", "x", 100)
	f.Add(strings.Repeat("长文本", 500), "b", "\n\n", 2400)
	f.Add("", "", "", 0)
	f.Add("😀😀😀", "a\tb", "c", 75)
	f.Fuzz(func(t *testing.T, a, b, c string, budget int) {
		if budget < -1 || budget > 100000 {
			return
		}
		hits := []memory.Hit{hit(memory.KindPreference, a), hit(memory.KindLesson, b), hit("", c)}
		hits[1].Offset = len(a) % 1000
		hits[2].Offset = budget % 50
		got := memory.RenderBlock(hits, budget)
		if n := utf8.RuneCountInString(got); n > budget && got != "" {
			t.Fatalf("block of %d runes over budget %d", n, budget)
		}
		if got != "" && (!strings.HasPrefix(got, "<memory>\n") || !strings.HasSuffix(got, "</memory>") || strings.Count(got, "</memory>") != 1) {
			t.Fatalf("block not marked: %q", got)
		}
	})
}
