package agent

import (
	"fmt"
	"strings"

	"engram/agent/llm"
	"engram/memory"
)

// baseInstructions open every system prompt.
const baseInstructions = `You are Engram, a helpful assistant with a long-term memory that persists between conversations.
Answer the user directly and concisely. When memories below are relevant, use them; when they conflict with what the user says now, trust the user.`

// toolInstructions describe the memory tools when they are offered.
const toolInstructions = `You have memory tools. Use memory_write when the user states a lasting preference, corrects you, or tells you a stable fact worth keeping (one short self-contained sentence per memory; scope "project" for facts about the pinned project). Use memory_search to look up what you may know, memory_update to fix a memory, and memory_forget when the user asks you to forget something. Do not announce routine memory writes at length.`

// pinnedBudget bounds the characters of the pinned-memories section.
const pinnedBudget = 4000

// prompt assembles the messages of a request: the system prompt, then the
// chat from its last summary on. The system prompt is, in order: the base
// instructions, the global AGENTS.md, the project's AGENTS.md, the pinned
// memories, the summary of earlier messages, and last the recall block of
// this turn, so everything before it stays a stable, cacheable prefix.
func (a *Agent) prompt(c Chat, ts *turnState, cfg Config, tools bool) []llm.Message {
	var b strings.Builder
	b.WriteString(baseInstructions)
	if tools {
		b.WriteString("\n\n")
		b.WriteString(toolInstructions)
	}
	section := func(title, body string) {
		if body = strings.TrimSpace(body); body != "" {
			fmt.Fprintf(&b, "\n\n## %s\n\n%s", title, body)
		}
	}
	text, changed := a.instr.Text()
	if changed {
		a.emit(a.instr.Event())
	}
	section("Instructions (global AGENTS.md)", text)
	var pinned []memory.Entry
	pinned = append(pinned, a.global.pinnedEntries()...)
	if ts.project != nil {
		text, changed := ts.project.instr.Text()
		if changed {
			a.emit(ts.project.instr.Event())
		}
		section(fmt.Sprintf("Project instructions (%s)", ts.project.instr.Path()), text)
		pinned = append(pinned, ts.project.store.pinnedEntries()...)
	}
	section("Pinned memories", renderPinned(pinned))
	start := 0
	for i, m := range c.Messages {
		if m.Role == RoleSummary {
			start = i + 1
			section("Summary of the earlier conversation", m.Text)
		}
	}
	if len(ts.hits) > 0 {
		hits := make([]memory.Hit, len(ts.hits))
		for i, h := range ts.hits {
			hits[i] = h.Hit
		}
		if block := memory.RenderBlock(hits, cfg.RecallBudget); block != "" {
			b.WriteString("\n\n")
			b.WriteString(block)
		}
	}
	msgs := []llm.Message{{Role: "system", Content: b.String()}}
	for _, m := range c.Messages[start:] {
		switch {
		case m.Role == RoleUser:
			msgs = append(msgs, llm.Message{Role: "user", Content: m.Text})
		case m.Role == RoleAssistant && m.Text != "":
			msgs = append(msgs, llm.Message{Role: "assistant", Content: m.Text})
		}
	}
	if ts.prefix != "" {
		msgs = append(msgs, llm.Message{Role: "user", Content: continueInstruction})
	}
	return msgs
}

// renderPinned lists pinned memories, one a line, within pinnedBudget.
func renderPinned(es []memory.Entry) string {
	var b strings.Builder
	for _, e := range fitPinned(es) {
		b.WriteString(pinnedLine(e))
	}
	return b.String()
}

// fitPinned returns the first of es whose lines fit in pinnedBudget: the
// pinned memories that go into the prompt.
func fitPinned(es []memory.Entry) []memory.Entry {
	n := 0
	for i, e := range es {
		if n += len(pinnedLine(e)); n > pinnedBudget {
			return es[:i]
		}
	}
	return es
}

// pinnedLine is a pinned memory's line in the prompt.
func pinnedLine(e memory.Entry) string {
	return fmt.Sprintf("- (%s) %s\n", e.Kind, strings.Join(strings.Fields(e.Text), " "))
}
