package markdown

import "testing"

func TestPlain(t *testing.T) {
	for _, c := range []struct{ name, md, want string }{
		{"inline markup", "Some **bold**, *it*, `code` and ~~old~~ new.\nNext line.", "Some bold, it, code and old new.\nNext line."},
		{"heading and paragraph", "# Title\n\nText.", "Title\n\nText."},
		{"nested list", mdNested, "1. Build it\n2. Copy it to the server\n  • use scp\n  • or rsync\n3. Restart"},
		{"tasks", mdTasks, "☑ write the tests\n☐ ship it"},
		{"code", "Run:\n\n" + mdGoBlock, "Run:\n\n// main greets.\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |\n", "a\tb\n1\t2"},
		{"links", "See https://example.com and [the docs](http://x.y).", "See https://example.com and the docs."},
		{"chinese", "我喜欢**绿茶**。", "我喜欢绿茶。"},
	} {
		if got := Plain(c.md); got != c.want {
			t.Errorf("%s: Plain(%q) = %q, want %q", c.name, c.md, got, c.want)
		}
	}
}
