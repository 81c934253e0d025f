package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"

	"engram/agent"
)

// captureModes are the capture modes in the order the window offers them.
var captureModes = []agent.CaptureMode{agent.CaptureAuto, agent.CaptureAsk, agent.CaptureOff}

// captureName is a capture mode as the window shows it.
func captureName(m agent.CaptureMode) string {
	switch m {
	case agent.CaptureAsk:
		return lang.L("Ask me first (suggestions to keep or discard)")
	case agent.CaptureOff:
		return lang.L("Off")
	}
	return lang.L("Automatically")
}

// chatCaptureLabel is the toolbar's short name of a chat's own capture
// mode ("" follows the setting).
func chatCaptureLabel(m agent.CaptureMode) string {
	switch m {
	case "":
		return lang.L("Memories: as in Settings")
	case agent.CaptureAsk:
		return lang.L("Memories: ask first")
	case agent.CaptureOff:
		return lang.L("Memories: off")
	}
	return lang.L("Memories: automatic")
}

// captureIcon is the icon of a chat's own capture mode ("" follows the
// setting).
func captureIcon(m agent.CaptureMode) fyne.Resource {
	switch m {
	case "":
		return theme.SettingsIcon()
	case agent.CaptureAsk:
		return theme.QuestionIcon()
	case agent.CaptureOff:
		return theme.CancelIcon()
	}
	return theme.DocumentSaveIcon()
}

// captureNames lists the names of captureModes.
func captureNames() []string {
	names := make([]string, len(captureModes))
	for k, m := range captureModes {
		names[k] = captureName(m)
	}
	return names
}

// captureOf is the capture mode a name shown by captureName stands for.
func captureOf(name string) agent.CaptureMode {
	for _, m := range captureModes {
		if captureName(m) == name {
			return m
		}
	}
	return agent.CaptureAuto
}
