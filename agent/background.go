package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"engram/agent/llm"
	"engram/agent/prompts"
)

// distillTimeout bounds one distillation call.
const distillTimeout = 2 * time.Minute

// distill runs consolidation after a finished turn: it recalls the existing
// memories related to the user's message (both stores), asks the model
// for operations on them and applies them (see apply) in the chat's
// capture mode. It reports MemoriesSaved per store that got new entries,
// MemoriesRevised for updates and forgets, SuggestionsChanged for held
// suggestions, or MemoriesSaved with Err when the call or its answer
// failed.
func (a *Agent) distill(cfg Config, chatID, projectDir, user, excerpt string) {
	ctx, cancel := context.WithTimeout(a.ctx, distillTimeout)
	defer cancel()
	info, err := a.chats.info(chatID)
	if err != nil {
		return // deleted meanwhile
	}
	var proj *projectState
	if projectDir != "" {
		proj, _ = a.project(projectDir) // opened by the turn already
	}
	res, err := a.consolidateTurn(ctx, cfg, captureMode(cfg, info), chatID, proj, user, excerpt)
	if ctx.Err() != nil {
		return // closing
	}
	if err != nil {
		a.emit(MemoriesSaved{ChatID: chatID, Scope: ScopeGlobal, Err: fmt.Errorf("distill: %w", err)})
		return
	}
	a.report(chatID, res)
	a.global.pinnedEntries() // refresh the cache for the next turn
}

// consolidateTurn makes the distillation call of one turn and applies its
// answer. An answer in prose only means nothing is worth keeping.
func (a *Agent) consolidateTurn(ctx context.Context, cfg Config, mode CaptureMode, chatID string, proj *projectState,
	user, excerpt string) (applied, error) {
	shown := related(a.stores(proj), user)
	client := a.opts.Connect(cfg.endpoint())
	req := llm.Request{Model: cfg.Model, Messages: []llm.Message{
		{Role: "system", Content: prompts.Distill},
		{Role: "user", Content: distillInput(shown, user, excerpt)},
	}}
	reply, err := a.complete(ctx, client, req, "", nil)
	if err != nil {
		return applied{}, err
	}
	cands, err := parseDistilled(reply.Text)
	if err != nil && !strings.ContainsAny(reply.Text, "[{") {
		return applied{}, nil
	}
	if err != nil {
		return applied{}, err
	}
	return a.apply(chatID, proj, mode, shown, cands), nil
}

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
		{Role: "system", Content: prompts.Compact},
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
