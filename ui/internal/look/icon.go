package look

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
)

// flatIcons holds the icons of FlatIcon, by name and colour. It is used
// on the UI goroutine only.
var flatIcons = map[string]fyne.Resource{}

// FlatIcon returns the themed icon res coloured for the current theme as a
// plain SVG resource, made once per icon and colour. A themed icon is
// coloured anew (the SVG parsed and written again) each time an image
// shows it, which was most of the cost of building a message with its
// buttons. A message built before the theme changed keeps the colour it
// was built with until it is rebuilt.
func FlatIcon(res fyne.Resource) fyne.Resource {
	th, ok := res.(fyne.ThemedResource)
	if !ok {
		return res
	}
	set := fyne.CurrentApp().Settings()
	r, g, b, a := set.Theme().Color(th.ThemeColorName(), set.ThemeVariant()).RGBA()
	key := fmt.Sprintf("%s-%02x%02x%02x%02x.svg", strings.TrimSuffix(res.Name(), ".svg"), r>>8, g>>8, b>>8, a>>8)
	if f, ok := flatIcons[key]; ok {
		return f
	}
	f := fyne.NewStaticResource(key, res.Content())
	flatIcons[key] = f
	return f
}
