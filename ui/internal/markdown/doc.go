// Package markdown renders a chat message's Markdown (CommonMark with the
// GFM extensions) as Fyne widgets, code blocks highlighted and copyable.
package markdown
