package markdown

import (
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Fyne's text styles have no strikethrough. The combining long stroke
// (U+0336) after each character, which Render used before, is drawn by
// Fyne's shaper centred on the edge after its character, not over it: the
// line began in the middle of the first character and ran on into the
// space after the text. So each struck word (and space between struck
// words) is a text segment followed by a strikeLine, an inline segment of
// no size that draws a line back over the word's measured width.

// strikeSegments returns the segments of s struck through in style st: for each
// run of letters or of spaces, its text and its line; line breaks are not
// struck.
func strikeSegments(s string, st widget.RichTextStyle) []widget.RichTextSegment {
	var out []widget.RichTextSegment
	size := theme.Size(st.SizeName)
	if st.SizeName == "" {
		size = theme.TextSize()
	}
	for _, tok := range tokens(s) {
		out = append(out, &widget.TextSegment{Text: tok, Style: st})
		if tok != "\n" {
			w := fyne.MeasureText(tok, size, st.TextStyle).Width
			out = append(out, &strikeLine{width: w, size: size, color: st.ColorName})
		}
	}
	return out
}

// tokens splits s into runs of spaces, runs of other characters and line
// breaks, each on its own.
func tokens(s string) []string {
	var out []string
	start := 0
	kind := func(r rune) int {
		switch {
		case r == '\n':
			return 2
		case unicode.IsSpace(r):
			return 1
		}
		return 0
	}
	prev := -1
	for i, r := range s {
		k := kind(r)
		if i > start && (k != prev || k == 2) {
			out = append(out, s[start:i])
			start = i
		}
		prev = k
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// strikeLine is the line through the text segment before it. RichText
// lays an inline segment that is not text out on the row's top and then,
// because its height (none) differs from the text's, moves it down by the
// row's baseline (a segment that is not text has none): its origin is the
// baseline at the end of the word, and the line is drawn left of it, at
// the height of the middle of lowercase letters.
type strikeLine struct {
	width, size float32
	color       fyne.ThemeColorName
}

// Inline implements widget.RichTextSegment.
func (s *strikeLine) Inline() bool { return true }

// Textual implements widget.RichTextSegment: the line adds no text.
func (s *strikeLine) Textual() string { return "" }

// Visual implements widget.RichTextSegment.
func (s *strikeLine) Visual() fyne.CanvasObject {
	c := &fyne.Container{Layout: noSize{}, Objects: []fyne.CanvasObject{canvas.NewRectangle(nil)}}
	s.Update(c)
	return c
}

// Update implements widget.RichTextSegment.
func (s *strikeLine) Update(o fyne.CanvasObject) {
	line := o.(*fyne.Container).Objects[0].(*canvas.Rectangle)
	name := s.color
	if name == "" {
		name = theme.ColorNameForeground
	}
	thick := max(1, s.size/14)
	line.FillColor = theme.Color(name)
	line.Move(fyne.NewPos(-s.width, -s.size*0.3-thick/2))
	line.Resize(fyne.NewSize(s.width, thick))
	line.Refresh()
}

// Select implements widget.RichTextSegment (a line has nothing to select).
func (s *strikeLine) Select(_, _ fyne.Position) {}

// SelectedText implements widget.RichTextSegment.
func (s *strikeLine) SelectedText() string { return "" }

// Unselect implements widget.RichTextSegment.
func (s *strikeLine) Unselect() {}

// noSize is the layout of a strikeLine's container: it takes no room and
// leaves the line where Update put it.
type noSize struct{}

// Layout implements fyne.Layout.
func (noSize) Layout([]fyne.CanvasObject, fyne.Size) {}

// MinSize implements fyne.Layout.
func (noSize) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }
