// Package prompts holds the texts Engram sends the model as instructions,
// one Markdown file each, so a person can read, edit and diff them.
//
// Each file ends in a newline, as editors write them; the texts are the
// files without it. The files have no template variables: what changes
// from turn to turn (memories, dates, the chat) is added by the code that
// sends them.
package prompts

import (
	_ "embed"
	"strings"
)

var (
	//go:embed base.md
	base string
	//go:embed tools.md
	tools string
	//go:embed continue.md
	cont string
	//go:embed compact.md
	compact string
	//go:embed distill.md
	distill string
	//go:embed title.md
	title string
)

var (
	// Base opens the system prompt of every chat turn: who Engram is and
	// how it answers.
	Base = text(base)
	// Tools follows Base when the memory tools are offered: when to use
	// each of them.
	Tools = text(tools)
	// Continue is the user message that asks the model to go on with an
	// answer that was stopped.
	Continue = text(cont)
	// Compact is the system prompt of a compaction call, which summarises
	// the older part of a chat.
	Compact = text(compact)
	// Distill is the system prompt of a distillation call: extraction and
	// consolidation of memories in one (the two phases of mem0's design).
	Distill = text(distill)
	// Title is the system prompt of the call that names a chat after its
	// first exchange.
	Title = text(title)
)

// text is a prompt file without its final newline.
func text(file string) string { return strings.TrimSuffix(file, "\n") }
