package markdown

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/ui/internal/look"
	"engram/ui/internal/uitest"
)

// The Markdown the golden files pin.
const (
	mdTable = "| Command | 说明 | Time |\n|:--|:-:|--:|\n| `make` | 构建项目 | 12 s |\n" +
		"| `make deploy` | 部署到服务器 | 3 min |\n"
	mdNested   = "1. Build it\n2. Copy it to the server\n   - use scp\n   - or rsync\n3. Restart\n"
	mdTasks    = "- [x] write the tests\n- [ ] ship it\n"
	mdStrike   = "The port is ~~8080~~ 9090 now."
	mdGoBlock  = "```go\n// main greets.\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}\n```\n"
	mdTwoLines = "line one\nline two"
)

func noClip() Clipboard { return Clipboard{Set: func(string) {}} }

func TestMarkdownGolden(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"table", mdTable},
		{"nested_list", mdNested},
		{"task_list", mdTasks},
		{"strikethrough", mdStrike},
		{"go_block", mdGoBlock},
	} {
		t.Run(c.name, func(t *testing.T) {
			test.NewTempApp(t)
			w := uitest.RenderWindow(t, Render(c.text, noClip())...)
			test.AssertRendersToMarkup(t, "markdown_"+c.name+".xml", w.Canvas())
		})
	}
}

// objects are the objects of type T under o, laid out.
func objects[T any](o fyne.CanvasObject) []T {
	var out []T
	for _, x := range test.LaidOutObjects(o) {
		if v, ok := x.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// richTexts are the RichTexts under objs, laid out.
func richTexts(objs []fyne.CanvasObject) []*widget.RichText {
	return objects[*widget.RichText](container.NewVBox(objs...))
}

func TestMarkdownTableIsAGrid(t *testing.T) {
	test.NewTempApp(t)
	objs := Render(mdTable, noClip())
	uitest.RenderWindow(t, objs...)
	cells := richTexts(objs)
	if len(cells) != 9 {
		t.Fatalf("%d cells, want 3 rows of 3", len(cells))
	}
	for row := 1; row < 3; row++ {
		for col := 0; col < 3; col++ {
			a, b := cells[col], cells[row*3+col]
			if a.Position().X != b.Position().X || a.Size().Width != b.Size().Width {
				t.Errorf("row %d column %d at x %v width %v, header at %v width %v", row, col,
					b.Position().X, b.Size().Width, a.Position().X, a.Size().Width)
			}
		}
	}
	if s := cells[4].String(); s != "构建项目" {
		t.Errorf("cell (1,1) = %q", s)
	}
	if ts := cells[0].Segments[0].(*widget.TextSegment); !ts.Style.TextStyle.Bold {
		t.Error("the header is not bold")
	}
	if ts := cells[5].Segments[0].(*widget.TextSegment); ts.Style.Alignment != fyne.TextAlignTrailing {
		t.Error("the right-aligned column is not aligned right")
	}
	if strings.Contains(cells[0].String(), "|") {
		t.Error("the table shows its pipes")
	}
}

func TestMarkdownNestedListIsIndented(t *testing.T) {
	test.NewTempApp(t)
	objs := Render(mdNested, noClip())
	uitest.RenderWindow(t, objs...)
	pos := map[string]fyne.Position{}
	for _, rt := range richTexts(objs) {
		pos[strings.TrimSpace(rt.String())] = fyne.CurrentApp().Driver().AbsolutePositionForObject(rt)
	}
	for _, s := range []string{"1.", "2.", "3.", "Copy it to the server", "use scp", "◦"} {
		if _, ok := pos[s]; !ok {
			t.Fatalf("no text %q among %v", s, pos)
		}
	}
	if pos["use scp"].Y <= pos["Copy it to the server"].Y {
		t.Error("the nested item is not below its parent's text")
	}
	if pos["use scp"].X <= pos["Copy it to the server"].X {
		t.Error("the nested item is not indented")
	}
}

func TestMarkdownInlineExtensions(t *testing.T) {
	test.NewTempApp(t)
	shown := func(md string) string {
		var b strings.Builder
		for _, rt := range richTexts(Render(md, noClip())) {
			b.WriteString(rt.String())
		}
		return b.String()
	}
	if got := shown(mdStrike); !strings.Contains(got, "The port is 8080 9090 now.") || strings.Contains(got, "~") {
		t.Errorf("strikethrough shows %q", got)
	}
	if got := shown(mdTwoLines); !strings.Contains(got, "line one\nline two") {
		t.Errorf("two lines show as %q", got)
	}
	objs := Render(mdTasks, noClip())
	icons := objects[*widget.Icon](container.NewVBox(objs...))
	if len(icons) != 2 || icons[0].Resource != look.FlatIcon(theme.CheckButtonCheckedIcon()) || icons[1].Resource != look.FlatIcon(theme.CheckButtonIcon()) {
		t.Errorf("task list markers are %d icons", len(icons))
	}
	links := 0
	for _, rt := range richTexts(Render("See https://example.com/docs now.", noClip())) {
		for _, s := range rt.Segments {
			if l, ok := s.(*widget.HyperlinkSegment); ok && l.URL.String() == "https://example.com/docs" {
				links++
			}
		}
	}
	if links != 1 {
		t.Error("the bare URL is not a link")
	}
}

func TestHighlightColoursGo(t *testing.T) {
	t.Parallel() // shares nothing: no app, no globals
	colour := map[string]fyne.ThemeColorName{}
	var all strings.Builder
	for _, s := range highlight("// main greets.\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}", "go") {
		ts := s.(*widget.TextSegment)
		all.WriteString(ts.Text)
		colour[strings.TrimSpace(ts.Text)] = ts.Style.ColorName
	}
	if all.String() != "// main greets.\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}" {
		t.Fatalf("the segments spell %q", all.String())
	}
	for tok, want := range map[string]fyne.ThemeColorName{"// main greets.": theme.ColorNamePlaceHolder,
		"func": theme.ColorNamePrimary, `"hi"`: theme.ColorNameSuccess, "42": theme.ColorNameWarning} {
		if colour[tok] != want {
			t.Errorf("%s is %q, want %q (all: %v)", tok, colour[tok], want, colour)
		}
	}
	if segs := highlight("plain words", "no-such-language"); len(segs) != 1 {
		t.Errorf("an unknown language gives %d segments", len(segs))
	}
}

func TestCopyButtonConfirms(t *testing.T) {
	test.NewTempApp(t)
	var copied string
	var revert func()
	clip := Clipboard{Set: func(s string) { copied = s }, Later: func(_ time.Duration, f func()) { revert = f }}
	btn := objects[*widget.Button](container.NewVBox(Render(mdGoBlock, clip)...))[0]
	test.Tap(btn)
	if !strings.HasPrefix(copied, "// main greets.") || btn.Text != "Copied" || btn.Icon != look.FlatIcon(theme.ConfirmIcon()) {
		t.Fatalf("copied %q, button says %q", copied, btn.Text)
	}
	revert()
	if btn.Text != "" || btn.Icon != look.FlatIcon(theme.ContentCopyIcon()) {
		t.Errorf("after a while the button says %q", btn.Text)
	}
}

// FuzzRenderMarkdown renders arbitrary text, whole and streamed: it must
// not panic, and what shows must not lose the text's letters and digits.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{mdTable, mdNested, mdTasks, mdStrike, mdGoBlock, mdTwoLines,
		"| a |\n|---|\n| b | c |", "- [ ]\n  - [x] 中文\n", "```\nunclosed", "> quote\n> - list\n", "~~~x\n~~~"} {
		f.Add(s)
	}
	test.NewTempApp(f)
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		mv := NewView(container.NewVBox(), noClip())
		mv.Set(text[:len(text)/2], false)
		mv.Set(text, false)
		mv.Set(text, true)
		if strings.TrimSpace(text) != "" && len(mv.box.Objects) == 0 {
			t.Fatalf("%q renders to nothing", text)
		}
	})
}

func TestStableCut(t *testing.T) {
	t.Parallel() // shares nothing: no app, no globals
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"one paragraph", 0},
		{"para\n\nnext", 6},
		{"para\n\n```go\nx\n\ny\n", 6},
		{"para\n\n```go\nx\n\ny\n```\n\ntail", 22},
		{"a\n\nb\n\n", 6},
		{"  ~~~\n\n~~~\n", 0},
	} {
		if got := stableCut(c.text); got != c.want {
			t.Errorf("stableCut(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

// TestStreamedMarkdownMatchesFullRender checks that the incremental
// rendering of a streaming answer shows the same text as rendering it whole.
func TestStreamedMarkdownMatchesFullRender(t *testing.T) {
	test.NewTempApp(t)
	text := "# Plan\n\nFirst **bold** step.\n\n```sh\nmake deploy\n\nmake check\n```\n\n1. one\n2. two\n\nDone 中文。"
	inc := NewView(container.NewVBox(), noClip())
	for n := 1; n <= len(text); n++ {
		if utf8.ValidString(text[:n]) {
			inc.Set(text[:n], false)
		}
	}
	whole := NewView(container.NewVBox(), noClip())
	whole.Set(text, true)
	flat := func(o fyne.CanvasObject) string {
		var b strings.Builder
		for _, x := range test.LaidOutObjects(o) {
			switch w := x.(type) {
			case *widget.RichText:
				for _, seg := range w.Segments {
					b.WriteString(seg.Textual())
				}
			case *widget.Label:
				b.WriteString(w.Text)
			}
		}
		return strings.Join(strings.Fields(b.String()), "")
	}
	if got, want := flat(inc.box), flat(whole.box); got != want {
		t.Fatalf("streamed render shows\n%q\nwhole render shows\n%q", got, want)
	}
	if len(inc.kept) == 0 {
		t.Error("nothing was kept between updates")
	}
}
