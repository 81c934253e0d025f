package markdown

import (
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/ui/internal/look"
)

// copiedFor is how long a Copy button says "Copied".
const copiedFor = 1500 * time.Millisecond

// Clipboard is how the chat pane copies: Set puts text on the clipboard,
// Later (if not nil) runs a function on the UI goroutine after a while.
type Clipboard struct {
	Set   func(string)
	Later func(time.Duration, func())
}

// Button is a Copy button, an icon alone: tapped, it copies text() and
// says "Copied" (with a check mark) for a moment.
func (c Clipboard) Button(text func() string) *widget.Button {
	btn := widget.NewButton("", nil)
	c.Attach(btn, text)
	return btn
}

// Attach makes btn a Copy button of text(), as Button does.
func (c Clipboard) Attach(btn *widget.Button, text func() string) {
	btn.Text, btn.Icon, btn.Importance = "", look.FlatIcon(theme.ContentCopyIcon()), widget.LowImportance
	btn.OnTapped = func() {
		c.Set(text())
		btn.SetText(lang.L("Copied"))
		btn.SetIcon(look.FlatIcon(theme.ConfirmIcon()))
		if c.Later != nil {
			c.Later(copiedFor, func() {
				btn.SetText("")
				btn.SetIcon(look.FlatIcon(theme.ContentCopyIcon()))
			})
		}
	}
}

// codeBlock shows code readable (monospace, highlighted for its language,
// broken at the edge rather than cut) with a button that copies it.
func codeBlock(code, lang string, clip Clipboard) fyne.CanvasObject {
	code = strings.TrimSuffix(code, "\n")
	rt := widget.NewRichText(highlight(code, lang)...)
	rt.Wrapping = fyne.TextWrapBreak
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	btn := clip.Button(func() string { return code })
	return container.NewStack(bg, container.NewBorder(nil, nil, nil, container.NewVBox(btn), rt))
}

// View shows Markdown in a box. While it grows at the end (a streaming
// answer), the blocks before its last blank line outside a code fence are
// rendered once and kept, and only the open tail is parsed again; full
// re-renders the whole text (when the answer is complete, so that blocks
// that belong together, such as a loose list, are parsed as one).
type View struct {
	box  *fyne.Container
	clip Clipboard
	done string              // the prefix whose blocks are in kept
	kept []fyne.CanvasObject // its widgets
}

// NewView is a View that shows its Markdown in box (a vertical box) and
// copies code blocks through clip.
func NewView(box *fyne.Container, clip Clipboard) *View {
	return &View{box: box, clip: clip}
}

// Set shows text, reusing the widgets of an unchanged prefix unless full.
// It lays the box out at its current size but refreshes nothing: the new
// widgets draw themselves, the kept ones are unchanged.
func (mv *View) Set(text string, full bool) {
	if full || !strings.HasPrefix(text, mv.done) {
		mv.done, mv.kept = "", nil
	}
	if !full {
		if cut := stableCut(text); cut > len(mv.done) {
			mv.kept = append(mv.kept, Render(text[len(mv.done):cut], mv.clip)...)
			mv.done = text[:cut]
		}
	}
	mv.box.Objects = append(slices.Clip(mv.kept), Render(text[len(mv.done):], mv.clip)...)
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
