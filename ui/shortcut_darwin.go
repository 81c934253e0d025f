package ui

// shortcutPrefix names fyne.KeyModifierShortcutDefault in hints: Command on
// macOS.
const shortcutPrefix = "⌘"
