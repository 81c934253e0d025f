package markdown

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The line through struck text covers the struck words exactly: it starts
// where the word starts, ends where it ends (not in the space after it, as
// the combining stroke did) and runs between the word's top and baseline,
// also in a row whose inline code moves the texts to a common baseline
// and in a heading.
func TestStrikeLineCoversTheWordOnly(t *testing.T) {
	test.NewTempApp(t)
	for _, md := range []string{mdStrike, "Run `go vet` on ~~8080~~ now.", "## Port ~~8080~~ now", "~~8080~~"} {
		rt := richTexts(Render(md, noClip()))[0]
		w := test.NewWindow(rt)
		w.Resize(fyne.NewSize(500, 120))
		d := fyne.CurrentApp().Driver()
		objs := test.WidgetRenderer(rt).Objects()
		lines := 0
		for i, o := range objs {
			c, ok := o.(*fyne.Container)
			if !ok || i == 0 {
				continue
			}
			word, ok := objs[i-1].(*canvas.Text)
			if !ok || word.Text != "8080" {
				t.Errorf("%q: a line follows %T, not the struck word", md, objs[i-1])
				continue
			}
			lines++
			line := c.Objects[0].(*canvas.Rectangle)
			wp, lp := d.AbsolutePositionForObject(word), d.AbsolutePositionForObject(line)
			ww := fyne.MeasureText(word.Text, word.TextSize, word.TextStyle).Width
			_, base := d.RenderedTextSize(word.Text, word.TextSize, word.TextStyle, nil)
			if diff := lp.X - wp.X; diff < -0.5 || diff > 0.5 {
				t.Errorf("%q: the line starts %.1f from the word", md, diff)
			}
			if diff := lp.X + line.Size().Width - (wp.X + ww); diff < -0.5 || diff > 0.5 {
				t.Errorf("%q: the line ends %.1f from the end of the word", md, diff)
			}
			if lp.Y <= wp.Y || lp.Y+line.Size().Height >= wp.Y+base {
				t.Errorf("%q: the line at y %.1f is not between the word's top %.1f and baseline %.1f", md, lp.Y, wp.Y, wp.Y+base)
			}
		}
		if lines != 1 {
			t.Errorf("%q: %d lines through struck text, want 1", md, lines)
		}
		w.Close()
	}
}

func TestStrikeTokens(t *testing.T) {
	got := tokens("a bc  d\ne")
	want := []string{"a", " ", "bc", "  ", "d", "\n", "e"}
	if len(got) != len(want) {
		t.Fatalf("tokens = %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("tokens = %q, want %q", got, want)
		}
	}
	segs := strikeSegments("a b", widget.RichTextStyleInline)
	if len(segs) != 6 {
		t.Errorf("%d segments for \"a b\", want a word, a space and a word with their lines", len(segs))
	}
}
