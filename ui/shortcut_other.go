//go:build !darwin

package ui

// shortcutPrefix names fyne.KeyModifierShortcutDefault in hints: Control
// everywhere but macOS.
const shortcutPrefix = "Ctrl+"
