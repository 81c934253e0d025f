package markdown

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// highlight splits code into monospace text segments coloured by token
// type for the language lang (a fence's info string such as "go" or
// "sh"). The colours are theme colour names, so they follow the light and
// dark themes. An unknown or empty language gives one plain segment.
func highlight(code, lang string) []widget.RichTextSegment {
	var lexer chroma.Lexer
	if lang = strings.TrimSpace(lang); lang != "" {
		if f := strings.Fields(lang); len(f) > 0 {
			lexer = lexers.Get(f[0])
		}
	}
	if lexer == nil {
		return []widget.RichTextSegment{codeSegment(code, theme.ColorNameForeground)}
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return []widget.RichTextSegment{codeSegment(code, theme.ColorNameForeground)}
	}
	var out []widget.RichTextSegment
	var last *widget.TextSegment
	for tok := it(); tok != chroma.EOF; tok = it() {
		c := tokenColor(tok.Type)
		if last != nil && (last.Style.ColorName == c || strings.TrimSpace(tok.Value) == "") {
			last.Text += tok.Value // merge runs of one colour, and spaces, to keep segments few
			continue
		}
		last = codeSegment(tok.Value, c)
		out = append(out, last)
	}
	if last != nil {
		last.Text = strings.TrimSuffix(last.Text, "\n") // the lexer ends the code with a newline
	}
	return out
}

// codeSegment is a piece of code in colour c.
func codeSegment(text string, c fyne.ThemeColorName) *widget.TextSegment {
	return &widget.TextSegment{Text: text, Style: widget.RichTextStyle{Inline: true, ColorName: c,
		SizeName: theme.SizeNameText, TextStyle: fyne.TextStyle{Monospace: true}}}
}

// tokenColor maps a token type onto a theme colour: keywords primary,
// strings success (green), numbers warning (orange), comments the
// placeholder's dim colour, names of functions and types hyperlink blue,
// deleted lines error (red); the rest foreground.
func tokenColor(t chroma.TokenType) fyne.ThemeColorName {
	switch {
	case t == chroma.GenericDeleted:
		return theme.ColorNameError
	case t == chroma.GenericInserted:
		return theme.ColorNameSuccess
	case t == chroma.NameFunction || t == chroma.NameClass || t == chroma.NameBuiltin ||
		t == chroma.KeywordType || t == chroma.NameTag:
		return theme.ColorNameHyperlink
	case t.InCategory(chroma.Keyword):
		return theme.ColorNamePrimary
	case t.InCategory(chroma.Comment):
		return theme.ColorNamePlaceHolder
	case t.InSubCategory(chroma.LiteralString):
		return theme.ColorNameSuccess
	case t.InSubCategory(chroma.LiteralNumber):
		return theme.ColorNameWarning
	}
	return theme.ColorNameForeground
}
