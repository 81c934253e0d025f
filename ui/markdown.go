package ui

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// renderMarkdown turns Markdown into widgets: prose as word-wrapped
// RichText, and each code block as a selectable monospace label on a tinted
// panel with a Copy button (copy receives the block's text).
func renderMarkdown(text string, copy func(string)) []fyne.CanvasObject {
	segs := widget.NewRichTextFromMarkdown(text).Segments
	var out []fyne.CanvasObject
	var prose []widget.RichTextSegment
	flush := func() {
		if len(prose) == 0 {
			return
		}
		rt := widget.NewRichText(prose...)
		rt.Wrapping = fyne.TextWrapWord
		out = append(out, rt)
		prose = nil
	}
	for _, s := range segs {
		if ts, ok := s.(*widget.TextSegment); ok && ts.Style == widget.RichTextStyleCodeBlock {
			flush()
			out = append(out, codeBlock(ts.Text, copy))
			continue
		}
		prose = append(prose, s)
	}
	flush()
	return out
}

// codeBlock shows code readable (monospace, selectable, broken at the edge
// rather than cut) with a button that copies it.
func codeBlock(code string, copy func(string)) fyne.CanvasObject {
	l := widget.NewLabel(code)
	l.TextStyle.Monospace = true
	l.Selectable = true
	l.Wrapping = fyne.TextWrapBreak
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	btn := widget.NewButtonWithIcon("", theme.ContentCopyIcon(), func() { copy(code) })
	btn.Importance = widget.LowImportance
	return container.NewStack(bg, container.NewBorder(nil, nil, nil, container.NewVBox(btn), l))
}

// markdownView shows Markdown in box. While it grows at the end (a streaming
// answer), the blocks before its last blank line outside a code fence are
// rendered once and kept, and only the open tail is parsed again; full
// re-renders the whole text (when the answer is complete, so that blocks
// that belong together, such as a loose list, are parsed as one).
type markdownView struct {
	box  *fyne.Container
	copy func(string)
	done string              // the prefix whose blocks are in kept
	kept []fyne.CanvasObject // its widgets
}

// set shows text, reusing the widgets of an unchanged prefix unless full.
// It lays the box out at its current size but refreshes nothing: the new
// widgets draw themselves, the kept ones are unchanged.
func (mv *markdownView) set(text string, full bool) {
	if full || !strings.HasPrefix(text, mv.done) {
		mv.done, mv.kept = "", nil
	}
	if !full {
		if cut := stableCut(text); cut > len(mv.done) {
			mv.kept = append(mv.kept, renderMarkdown(text[len(mv.done):cut], mv.copy)...)
			mv.done = text[:cut]
		}
	}
	mv.box.Objects = append(slices.Clip(mv.kept), renderMarkdown(text[len(mv.done):], mv.copy)...)
	mv.box.Layout.Layout(mv.box.Objects, mv.box.Size())
}

// stableCut is the end of the last blank line of text outside a fenced code
// block: appending to text cannot change how the Markdown before it renders
// (except for rare constructs spanning blank lines, which the final full
// render puts right).
func stableCut(text string) int {
	cut, fence, pos := 0, false, 0
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			break // the last line is still being written
		}
		line := strings.TrimSpace(text[pos : pos+end])
		pos += end + 1
		switch {
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			fence = !fence
		case line == "" && !fence:
			cut = pos
		}
	}
	return cut
}
