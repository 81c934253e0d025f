package ui

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// The focus mark is the primary colour, strong enough to be seen on
// either background; every other colour is the default theme's.
func TestThemeFocusIsVisible(t *testing.T) {
	th := Theme()
	for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		focus := color.NRGBAModel.Convert(th.Color(theme.ColorNameFocus, v)).(color.NRGBA)
		primary := color.NRGBAModel.Convert(th.Color(theme.ColorNamePrimary, v)).(color.NRGBA)
		if focus.A < 0x70 || focus.R != primary.R || focus.G != primary.G || focus.B != primary.B {
			t.Errorf("variant %d: focus %v, primary %v: want the primary at alpha ≥ 0x70", v, focus, primary)
		}
		def := theme.DefaultTheme()
		for _, n := range []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameHover, theme.ColorNamePrimary, theme.ColorNameForeground} {
			if th.Color(n, v) != def.Color(n, v) {
				t.Errorf("variant %d: %s differs from the default theme's", v, n)
			}
		}
	}
}
