package ui

import (
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
