package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"engram/agent/llm"
	"engram/memory"
)

// distillTimeout bounds one distillation call.
const distillTimeout = 2 * time.Minute

// distill asks the model for memories worth keeping from a finished turn
// and stores them with Source auto. It reports MemoriesSaved per store that
// got new entries, or with Err when the call or its answer failed.
func (a *Agent) distill(cfg Config, chatID, projectDir, excerpt string) {
	ctx, cancel := context.WithTimeout(a.ctx, distillTimeout)
	defer cancel()
	client := a.opts.Connect(cfg.BaseURL, cfg.APIKey)
	req := llm.Request{Model: cfg.Model, Messages: []llm.Message{
		{Role: "system", Content: distillPrompt},
		{Role: "user", Content: excerpt},
	}}
	reply, err := a.complete(ctx, client, req, "", nil)
	if ctx.Err() != nil {
		return // closing
	}
	if err != nil {
		a.emit(MemoriesSaved{ChatID: chatID, Scope: ScopeGlobal, Err: fmt.Errorf("distill: %w", err)})
		return
	}
	cands, err := parseDistilled(reply.Text)
	if err != nil && !strings.ContainsAny(reply.Text, "[{") {
		return // prose only: the model found nothing worth keeping
	}
	if err != nil {
		a.emit(MemoriesSaved{ChatID: chatID, Scope: ScopeGlobal, Err: fmt.Errorf("distill: %w", err)})
		return
	}
	var proj *projectState
	if projectDir != "" {
		proj, _ = a.project(projectDir) // opened by the turn already
	}
	// One batch per store: one file write each.
	batches := map[*storeState][]memory.Entry{}
	var order []*storeState
	for _, c := range cands {
		ss := a.global
		if c.Scope == ScopeProject && proj != nil {
			ss = proj.store
		}
		if _, ok := batches[ss]; !ok {
			order = append(order, ss)
		}
		batches[ss] = append(batches[ss], memory.Entry{Kind: c.Kind, Text: c.Text, Source: memory.SourceAuto})
	}
	saved := map[Scope][]memory.Entry{}
	var errs []string
	for _, ss := range order {
		res, err := ss.st.AddAll(batches[ss])
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for _, r := range res {
			switch {
			case r.Err != nil:
				errs = append(errs, r.Err.Error())
			case r.New:
				saved[ss.scope] = append(saved[ss.scope], r.Entry)
			}
		}
	}
	for _, scope := range []Scope{ScopeGlobal, ScopeProject} {
		if len(saved[scope]) > 0 {
			a.emit(MemoriesSaved{ChatID: chatID, Scope: scope, Entries: saved[scope]})
		}
	}
	a.global.pinnedEntries() // refresh the cache for the next turn
	if len(errs) > 0 && len(saved) == 0 {
		a.emit(MemoriesSaved{ChatID: chatID, Scope: ScopeGlobal,
			Err: fmt.Errorf("distill: no memory could be saved: %s", strings.Join(errs, "; "))})
	}
}

// compactPrompt is the system prompt of a compaction call.
const compactPrompt = `Summarise the conversation below so you can continue it without the full text. Keep what matters for the rest of the conversation: the user's goals and constraints, decisions made, facts established, code or names that are referred to, and open questions. Write plain prose or terse bullets, at most 300 words. Reply with the summary only.`

// compact summarises a chat's older messages with one model call when the
// messages since the last summary exceed cfg.ContextChars (or always, when
// force is set, keeping only the current message). The summary is inserted
// before the first kept message; the older messages stay in the chat for
// people but are no longer sent to the model.
func (a *Agent) compact(ctx context.Context, client llm.Completer, cfg Config, chatID string, force bool) error {
	c, err := a.chats.get(chatID)
	if err != nil {
		return err
	}
	start, prev := 0, ""
	for i, m := range c.Messages {
		if m.Role == RoleSummary {
			start, prev = i+1, m.Text
		}
	}
	active := c.Messages[start:]
	size := len(prev)
	for _, m := range active {
		size += len(m.Text)
	}
	if !force && size <= cfg.ContextChars {
		return nil
	}
	// Keep the recent messages within a quarter of the budget (only the
	// current one when forced), starting at a user message.
	keep := len(active) - 1
	if !force {
		kept := len(active[keep].Text)
		for keep > 0 && kept+len(active[keep-1].Text) <= cfg.ContextChars/4 {
			keep--
			kept += len(active[keep].Text)
		}
		for keep < len(active)-1 && active[keep].Role != RoleUser {
			keep++
		}
	}
	if keep <= 0 {
		return nil // nothing older to summarise
	}
	var t strings.Builder
	if prev != "" {
		fmt.Fprintf(&t, "Summary of what came before:\n%s\n\n", prev)
	}
	for _, m := range active[:keep] {
		if m.Text == "" {
			continue
		}
		fmt.Fprintf(&t, "%s: %s\n\n", strings.ToUpper(m.Role[:1])+m.Role[1:], m.Text)
	}
	transcript := cutMiddle(t.String(), cfg.ContextChars, cfg.ContextChars/3, "\n[…]\n")
	req := llm.Request{Model: cfg.Model, Messages: []llm.Message{
		{Role: "system", Content: compactPrompt},
		{Role: "user", Content: transcript},
	}}
	reply, err := a.complete(ctx, client, req, chatID, nil)
	if err != nil {
		return err
	}
	summary := strings.TrimSpace(reply.Text)
	if summary == "" {
		return &Error{Code: CodeBadResponse, Message: "The model returned an empty summary of the chat"}
	}
	at := start + keep
	err = a.chats.update(chatID, func(c *Chat) bool {
		if at > len(c.Messages) {
			return false
		}
		msgs := append([]Message(nil), c.Messages[:at]...)
		msgs = append(msgs, Message{ID: newMessageID(), Role: RoleSummary, Text: summary, Time: a.now()})
		c.Messages = append(msgs, c.Messages[at:]...)
		return true
	})
	if err != nil {
		return err
	}
	a.emit(Notice{ChatID: chatID, Text: fmt.Sprintf("Summarised %d earlier messages to fit the model's context.",
		keep)})
	return nil
}
