package markdown

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	gmtext "github.com/yuin/goldmark/text"
)

// Plain is Markdown as the text Render shows, without its markup: blocks
// apart by a blank line, list items on their lines with their bullet or
// number (nested ones indented), code as it is, table rows with their
// cells apart by tabs. It is what a person selecting the rendered text
// would expect to copy.
func Plain(text string) string {
	src := []byte(text)
	r := &mdRender{src: src}
	var b strings.Builder
	r.plainBlocks(&b, mdParser.Parse(gmtext.NewReader(src)), "")
	return strings.TrimRight(b.String(), "\n")
}

// plainBlocks writes the blocks of n, each line after indent.
func (r *mdRender) plainBlocks(b *strings.Builder, n ast.Node, indent string) {
	block := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
			b.WriteString("\n")
		}
		for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			b.WriteString(indent + line + "\n")
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch x := c.(type) {
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
			block(r.plainInline(x))
		case *ast.ThematicBreak:
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			block(r.lines(x))
		case *ast.List:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") && indent == "" {
				b.WriteString("\n")
			}
			num := x.Start
			if num == 0 {
				num = 1
			}
			for item := x.FirstChild(); item != nil; item = item.NextSibling() {
				marker := "• "
				switch task := taskBox(item); {
				case task != nil && task.IsChecked:
					marker = "☑ "
				case task != nil:
					marker = "☐ "
				case x.IsOrdered():
					marker = strconv.Itoa(num) + ". "
				}
				num++
				var sub strings.Builder
				r.plainBlocks(&sub, item, "")
				lines := strings.Split(strings.TrimRight(sub.String(), "\n"), "\n")
				for k, line := range lines {
					if k == 0 {
						b.WriteString(indent + marker + line + "\n")
					} else if line != "" {
						b.WriteString(indent + "  " + line + "\n")
					}
				}
			}
		case *extast.Table:
			var rows []string
			for row := x.FirstChild(); row != nil; row = row.NextSibling() {
				var cells []string
				for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
					cells = append(cells, r.plainInline(cell))
				}
				rows = append(rows, strings.Join(cells, "\t"))
			}
			block(strings.Join(rows, "\n"))
		default:
			r.plainBlocks(b, x, indent)
		}
	}
}

// plainInline is the text of n's inline content without markup, its line
// breaks kept.
func (r *mdRender) plainInline(n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := c.(type) {
		case *ast.Text:
			b.Write(x.Value(r.src))
			if x.SoftLineBreak() || x.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(x.Value)
		case *ast.AutoLink:
			b.Write(x.Label(r.src))
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			for i := 0; i < x.Segments.Len(); i++ {
				seg := x.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
