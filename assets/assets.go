// Package assets holds the files embedded in the app: its icon.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var icon []byte

// Icon is the app's icon, for its windows and dialogs.
var Icon = fyne.NewStaticResource("icon.png", icon)
