package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/ui/internal/look"
	"engram/ui/internal/markdown"
)

// Fyne's RichText, which draws the Markdown, cannot be selected; its
// Label can. So "Select text" shows a message's text as it reads, without
// the markup (markdown.Plain), in a selectable label of the same font:
// drag to select, Ctrl+C or the right-click menu to copy. The same action
// shows it formatted again.

// selectButton is the action that turns selecting on and off.
func (v *messageView) selectButton() *tipButton {
	tip, icon := lang.L("Select text"), theme.FileTextIcon()
	if v.m.selecting {
		tip, icon = lang.L("Show formatted"), theme.DocumentIcon()
	}
	return newTipButton(tip, look.FlatIcon(icon), v.toggleSelect, v.showTip)
}

// toggleSelect shows the text selectable, or formatted again.
func (v *messageView) toggleSelect() {
	v.m.selecting = !v.m.selecting
	v.update()
	v.changed()
}

// selectableBody is the message's text as a selectable label.
func (v *messageView) selectableBody() fyne.CanvasObject {
	l := widget.NewLabel(markdown.Plain(v.m.Text))
	l.Wrapping = fyne.TextWrapWord
	l.Selectable = true
	v.selLabel = l
	return l
}
