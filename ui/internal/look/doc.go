// Package look holds the small Fyne pieces that the window and the Markdown
// renderer share: icons flattened to the theme's colours and a gapless
// vertical layout.
package look
