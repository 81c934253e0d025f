package markdown

import (
	"net/url"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"

	"engram/ui/internal/look"
)

// mdParser parses CommonMark with the GFM extensions: tables,
// strikethrough, autolinks (linkify) and task lists.
var mdParser parser.Parser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// Render turns Markdown into widgets: consecutive paragraphs,
// headings and rules as one word-wrapped RichText, lists as indented rows
// with their bullet, number or check box, tables as aligned grids, block
// quotes with a bar, and code blocks highlighted with a Copy button. Every
// line break is kept (as in chat apps: a single newline a person typed
// shows as one).
func Render(text string, clip Clipboard) []fyne.CanvasObject {
	src := []byte(text)
	r := &mdRender{src: src, clip: clip}
	return r.blocks(mdParser.Parse(gmtext.NewReader(src)), 0)
}

// mdRender walks a goldmark AST.
type mdRender struct {
	src  []byte
	clip Clipboard
}

// blocks renders the block children of n; depth is the list nesting.
func (r *mdRender) blocks(n ast.Node, depth int) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	var prose []widget.RichTextSegment
	flush := func() {
		if len(prose) > 0 {
			out = append(out, proseText(prose))
			prose = nil
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch b := c.(type) {
		case *ast.Paragraph, *ast.TextBlock:
			prose = append(prose, r.paragraph(b, plainStyle())...)
		case *ast.Heading:
			st := widget.RichTextStyleParagraph
			switch b.Level {
			case 1:
				st = widget.RichTextStyleHeading
			case 2:
				st = widget.RichTextStyleSubHeading
			default:
				st.TextStyle.Bold = true
			}
			st.Inline = true
			prose = append(prose, r.paragraph(b, st)...)
		case *ast.ThematicBreak:
			prose = append(prose, &widget.SeparatorSegment{})
		case *ast.HTMLBlock:
			prose = append(prose, &widget.TextSegment{Text: strings.TrimRight(r.lines(b), "\n"),
				Style: widget.RichTextStyleParagraph})
		case *ast.List:
			flush()
			out = append(out, r.list(b, depth))
		case *ast.FencedCodeBlock:
			flush()
			out = append(out, codeBlock(r.lines(b), string(b.Language(r.src)), r.clip))
		case *ast.CodeBlock:
			flush()
			out = append(out, codeBlock(r.lines(b), "", r.clip))
		case *ast.Blockquote:
			flush()
			out = append(out, quote(r.blocks(b, depth)))
		case *extast.Table:
			flush()
			out = append(out, r.table(b))
		default:
			flush()
			out = append(out, r.blocks(b, depth)...)
		}
	}
	flush()
	return out
}

// proseText is a word-wrapped RichText of segs.
func proseText(segs []widget.RichTextSegment) *widget.RichText {
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// plainStyle is the style of running text.
func plainStyle() widget.RichTextStyle { return widget.RichTextStyleInline }

// paragraph renders the inline content of block b in style st, ending the
// paragraph.
func (r *mdRender) paragraph(b ast.Node, st widget.RichTextStyle) []widget.RichTextSegment {
	segs := r.inlines(b, st, false)
	end := widget.RichTextStyleParagraph
	end.SizeName = st.SizeName
	return append(segs, &widget.TextSegment{Style: end})
}

// inlines renders the inline children of n in style st; struck marks
// the text inside ~~strikethrough~~.
func (r *mdRender) inlines(n ast.Node, st widget.RichTextStyle, struck bool) []widget.RichTextSegment {
	var out []widget.RichTextSegment
	text := func(s string, st widget.RichTextStyle) {
		if s == "" {
			return
		}
		if struck {
			out = append(out, strikeSegments(s, st)...)
			return
		}
		if n := len(out); n > 0 {
			if ts, ok := out[n-1].(*widget.TextSegment); ok && ts.Style == st {
				ts.Text += s
				return
			}
		}
		out = append(out, &widget.TextSegment{Text: s, Style: st})
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch x := c.(type) {
		case *ast.Text:
			text(string(x.Value(r.src)), st)
			if x.SoftLineBreak() || x.HardLineBreak() {
				text("\n", st)
			}
		case *ast.String:
			text(string(x.Value), st)
		case *ast.CodeSpan:
			code := widget.RichTextStyleCodeInline
			text(r.plain(x), code)
		case *ast.Emphasis:
			em := st
			if x.Level >= 2 {
				em.TextStyle.Bold = true
			} else {
				em.TextStyle.Italic = true
			}
			out = append(out, r.inlines(x, em, struck)...)
		case *extast.Strikethrough:
			out = append(out, r.inlines(x, st, true)...)
		case *ast.Link:
			out = append(out, link(r.plain(x), string(x.Destination)))
		case *ast.AutoLink:
			dest := string(x.URL(r.src))
			out = append(out, link(string(x.Label(r.src)), dest))
		case *ast.Image:
			out = append(out, link(r.plain(x), string(x.Destination)))
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < x.Segments.Len(); i++ {
				seg := x.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
			text(b.String(), st)
		case *extast.TaskCheckBox:
			// drawn as the list item's marker
		default:
			out = append(out, r.inlines(x, st, struck)...)
		}
	}
	return out
}

// link is a hyperlink, or plain text when dest is not a URL.
func link(text, dest string) widget.RichTextSegment {
	if text == "" {
		text = dest
	}
	u, err := url.Parse(dest)
	if err != nil || dest == "" {
		return &widget.TextSegment{Text: text, Style: widget.RichTextStyleInline}
	}
	return &widget.HyperlinkSegment{Text: text, URL: u}
}

// plain is the text of n's inline content without markup.
func (r *mdRender) plain(n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := c.(type) {
		case *ast.Text:
			b.Write(x.Value(r.src))
			if x.SoftLineBreak() || x.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(x.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// lines is the raw text of a block's lines (a code block's code).
func (r *mdRender) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// list renders a list as rows of a marker and the item's blocks, nested
// lists indented under their item.
func (r *mdRender) list(l *ast.List, depth int) fyne.CanvasObject {
	box := container.New(look.TightVBox{})
	num := l.Start
	if num == 0 {
		num = 1
	}
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		var marker fyne.CanvasObject
		switch task := taskBox(item); {
		case task != nil:
			icon := look.FlatIcon(theme.CheckButtonIcon())
			if task.IsChecked {
				icon = look.FlatIcon(theme.CheckButtonCheckedIcon())
			}
			marker = lineIcon(icon)
		case l.IsOrdered():
			marker = markerText(strconv.Itoa(num) + ".")
		default:
			marker = markerText([]string{"•", "◦", "▪"}[depth%3])
		}
		num++
		body := container.New(look.TightVBox{}, r.blocks(item, depth+1)...)
		box.Add(container.NewBorder(nil, nil, marker, nil, body))
	}
	return container.New(layout.NewCustomPaddedLayout(0, 0, theme.Padding(), 0), box)
}

// taskBox is the check box that starts a task list item, or nil.
func taskBox(item ast.Node) *extast.TaskCheckBox {
	if first := item.FirstChild(); first != nil {
		if box, ok := first.FirstChild().(*extast.TaskCheckBox); ok {
			return box
		}
	}
	return nil
}

// markerText is a list item's bullet or number, level with the first line
// of the item's text (both are RichTexts with the same padding, in a
// tightVBox).
func markerText(s string) fyne.CanvasObject {
	st := widget.RichTextStyleStrong
	st.Alignment = fyne.TextAlignTrailing
	rt := widget.NewRichText(&widget.TextSegment{Text: s, Style: st})
	return container.New(look.TightVBox{}, rt)
}

// lineIcon is an icon level with the first line of a RichText in a
// tightVBox beside it.
func lineIcon(res fyne.Resource) fyne.CanvasObject {
	line := fyne.MeasureText("M", theme.TextSize(), fyne.TextStyle{}).Height
	size := theme.IconInlineSize()
	top := theme.InnerPadding() + (line-size)/2
	icon := widget.NewIcon(res)
	return container.New(look.TightVBox{}, container.New(layout.NewCustomPaddedLayout(top, 0, theme.Padding(), 0), icon))
}

// quote draws blocks with a bar on their left.
func quote(blocks []fyne.CanvasObject) fyne.CanvasObject {
	bar := canvas.NewRectangle(theme.Color(theme.ColorNamePlaceHolder))
	bar.SetMinSize(fyne.NewSize(3, 0))
	return container.NewBorder(nil, nil, bar, nil, container.NewVBox(blocks...))
}
