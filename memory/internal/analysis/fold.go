package analysis

// FoldWidth maps full-width ASCII (U+FF01–U+FF5E) and the ideographic space
// to their half-width forms.
func FoldWidth(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0
	case r == 0x3000:
		return ' '
	}
	return r
}
