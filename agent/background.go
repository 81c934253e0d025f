package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"engram/agent/chat"
	"engram/agent/distill"
	"engram/agent/internal/textcut"
	"engram/agent/llm"
	"engram/agent/prompts"
)

// distillTimeout bounds one distillation call.
const distillTimeout = 2 * time.Minute

// distill runs consolidation after a finished turn in the chat's capture
// mode (see distill.Pipeline.Consolidate) and reports what it did:
// MemoriesSaved per store that got new entries, MemoriesRevised for updates
// and forgets, SuggestionsChanged for held suggestions, or MemoriesSaved
// with Err when the call or its answer failed.
func (a *Agent) distill(cfg Config, chatID, projectDir, user, excerpt string) {
	ctx, cancel := context.WithTimeout(a.ctx, distillTimeout)
	defer cancel()
	info, err := a.chats.Info(chatID)
	if err != nil {
		return // deleted meanwhile
	}
	t, _ := a.distillTurn(chatID, captureMode(cfg, info), projectDir) // the turn opened the project already
	t.User, t.Excerpt = user, excerpt
	res, err := a.pipe.Consolidate(ctx, a.asker(cfg), t)
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

// distillTurn is the turn to consolidate in a chat: its capture mode and
// its stores, the project's opened if need be (without it when that fails).
func (a *Agent) distillTurn(chatID string, mode CaptureMode, projectDir string) (distill.Turn, error) {
	t := distill.Turn{ChatID: chatID, Mode: mode, Global: a.global.target()}
	if projectDir != "" {
		proj, err := a.project(projectDir)
		if err != nil {
			return t, err
		}
		pt := proj.store.target()
		t.Project = &pt
	}
	return t, nil
}

// asker is how the pipeline calls the model: with cfg's endpoint and model,
// through the turn's retries and error handling.
func (a *Agent) asker(cfg Config) distill.Ask {
	client := a.opts.Connect(cfg.endpoint())
	return func(ctx context.Context, msgs []llm.Message) (llm.Reply, error) {
		return a.complete(ctx, client, llm.Request{Model: cfg.Model, Messages: msgs}, "", nil)
	}
}

// report emits the events of an applied distillation.
func (a *Agent) report(chatID string, res distill.Outcome) {
	for _, scope := range []Scope{ScopeGlobal, ScopeProject} {
		if len(res.Saved[scope]) > 0 {
			a.emit(MemoriesSaved{ChatID: chatID, Scope: scope, Entries: res.Saved[scope]})
		}
	}
	rv := res.Revised
	if len(rv.Updated)+len(rv.Forgotten)+len(rv.Proposed) > 0 {
		a.emit(rv)
	}
	if res.Suggested > 0 {
		a.emit(SuggestionsChanged{ChatID: chatID})
	}
	if res.Secrets > 0 {
		a.notice(chatID, KeySecretNotSaved, "Count", res.Secrets)
	}
	changed := len(res.Saved) > 0 || len(rv.Updated)+len(rv.Forgotten)+len(rv.Proposed) > 0 || res.Suggested > 0
	if len(res.Errs) > 0 && !changed {
		a.emit(MemoriesSaved{ChatID: chatID, Scope: ScopeGlobal,
			Err: fmt.Errorf("distill: no memory could be saved: %s", strings.Join(res.Errs, "; "))})
	}
}

// compact summarises a chat's older messages with one model call when the
// messages since the last summary exceed cfg.ContextChars (or always, when
// force is set, keeping only the current message). The summary is inserted
// before the first kept message; the older messages stay in the chat for
// people but are no longer sent to the model.
func (a *Agent) compact(ctx context.Context, client llm.Completer, cfg Config, chatID string, force bool) error {
	c, err := a.chats.Get(chatID)
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
	transcript := textcut.Middle(t.String(), cfg.ContextChars, cfg.ContextChars/3, "\n[…]\n")
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
		return newError(CodeBadResponse, nil, KeyEmptySummary)
	}
	at := start + keep
	err = a.chats.Update(chatID, func(c *Chat) bool {
		if at > len(c.Messages) {
			return false
		}
		msgs := append([]Message(nil), c.Messages[:at]...)
		msgs = append(msgs, Message{ID: chat.NewMessageID(), Role: RoleSummary, Text: summary, Time: a.now()})
		c.Messages = append(msgs, c.Messages[at:]...)
		return true
	})
	if err != nil {
		return err
	}
	a.notice(chatID, KeySummarised, "Count", keep)
	return nil
}
