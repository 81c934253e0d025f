package agent

import (
	"fmt"
	"strings"

	"engram/agent/llm"
	"engram/agent/prompts"
	"engram/memory"
)

// pinnedBudget bounds the characters (runes) of the pinned-memories
// section; memory.RenderPinned shares it out so none is dropped silently.
const pinnedBudget = 4000

// prompt assembles the messages of a request: the system prompt, then the
// chat from its last summary on. The system prompt is, in order: the base
// instructions, the global AGENTS.md, the project's AGENTS.md, the pinned
// memories, the latest summary of earlier messages, today's date and last
// the recall block of this turn, so everything before the date stays a
// stable, cacheable prefix.
func (a *Agent) prompt(c Chat, ts *turnState, cfg Config, tools bool) []llm.Message {
	var b strings.Builder
	b.WriteString(prompts.Base)
	if tools {
		b.WriteString("\n\n")
		b.WriteString(prompts.Tools)
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
	if !c.Temporary {
		pinned = append(pinned, a.global.pinnedEntries()...)
	}
	if ts.project != nil {
		text, changed := ts.project.instr.Text()
		if changed {
			a.emit(ts.project.instr.Event())
		}
		section(fmt.Sprintf("Project instructions (%s)", ts.project.instr.Path()), text)
		if !c.Temporary {
			pinned = append(pinned, ts.project.store.pinnedEntries()...)
		}
	}
	section("Pinned memories", memory.RenderPinned(pinned, pinnedBudget))
	start := 0
	for i, m := range c.Messages {
		if m.Role == RoleSummary {
			start = i + 1
		}
	}
	if start > 0 {
		section("Summary of the earlier conversation", c.Messages[start-1].Text)
	}
	fmt.Fprintf(&b, "\n\nToday's date is %s.", a.now().Format("Monday, 2006-01-02"))
	for _, e := range pinned {
		a.seen.add(ts.chatID, e.ID)
	}
	if len(ts.hits) > 0 {
		hits := make([]memory.Hit, len(ts.hits))
		for i, h := range ts.hits {
			hits[i] = h.Hit
			a.seen.add(ts.chatID, h.Entry.ID)
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
		case m.Role == RoleAssistant && m.Text != "" && (!m.Interrupted || m.ID == ts.answerID):
			// an interrupted answer is sent only to be continued
			msgs = append(msgs, llm.Message{Role: "assistant", Content: m.Text})
		}
	}
	if ts.prefix != "" {
		msgs = append(msgs, llm.Message{Role: "user", Content: prompts.Continue})
	}
	return msgs
}
