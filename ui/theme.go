package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// focusAlpha is how strongly the focus mark covers a focused button, check
// or list row: Fyne's default (0x2a, about 16 %) over the dark background
// reads as no mark at all when moving through the window with Tab.
const focusAlpha = 0x80

// Theme is the window's theme: Fyne's default, which follows the system's
// light or dark mode and the primary colour chosen in Fyne's settings,
// with a focus mark that can be seen.
func Theme() fyne.Theme { return focusTheme{theme.DefaultTheme()} }

type focusTheme struct{ fyne.Theme }

// Color is the default theme's colour, except that the focus mark is the
// primary colour at focusAlpha.
func (t focusTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n != theme.ColorNameFocus {
		return t.Theme.Color(n, v)
	}
	c := color.NRGBAModel.Convert(t.Theme.Color(theme.ColorNamePrimary, v)).(color.NRGBA)
	c.A = focusAlpha
	return c
}
