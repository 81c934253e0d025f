package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// shortcutRows are the keys the shortcut sheet lists, with what they do.
func shortcutRows() [][2]string {
	return [][2]string{
		{lang.L("Enter"), lang.L("Send the message")},
		{lang.L("Shift+Enter"), lang.L("New line in the message")},
		{lang.L("Esc"), lang.L("Stop the answer, or close the dialog")},
		{shortcutName(fyne.KeyN), lang.L("New chat")},
		{shortcutName(fyne.KeyF), lang.L("Search memories")},
		{shortcutName(fyne.KeyK), lang.L("Search chats")},
		{lang.L("Tab, Shift+Tab"), lang.L("Move between the buttons and fields")},
		{shortcutName(fyne.Key1), lang.L("Go to the chat list")},
		{shortcutName(fyne.Key2), lang.L("Go to the message box")},
		{shortcutName(fyne.Key3), lang.L("Go to the memory search")},
		{shortcutName(fyne.Key4), lang.L("Go to the toolbar")},
		{shortcutName(fyne.KeySlash), lang.L("This list of shortcuts")},
		{shortcutName(fyne.KeyQ), lang.L("Quit")},
	}
}

// showShortcuts opens the sheet of keyboard shortcuts.
func (u *UI) showShortcuts() {
	grid := container.New(layout.NewFormLayout())
	for _, r := range shortcutRows() {
		grid.Add(widget.NewLabelWithStyle(r[0], fyne.TextAlignTrailing, fyne.TextStyle{Monospace: true}))
		grid.Add(widget.NewLabel(r[1]))
	}
	u.showDialog(dialog.NewCustom(lang.L("Keyboard shortcuts"), lang.L("Close"), grid, u.w))
}
