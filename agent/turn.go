package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"engram/agent/llm"
)

// turnState is what one turn accumulates.
type turnState struct {
	chatID   string
	answerID string // the ID of the answer message
	prefix   string // the text of the answer this turn continues, if any
	project  *projectState
	hits     []RecalledHit
	pinned   []RecalledHit
	answer   strings.Builder
	tools    []ToolRecord
	usage    Usage
	cut      bool         // the model stopped at its output limit
	saved    <-chan error // the write of the user's message
}

// turn runs one turn that start prepares (Send's appends the user's
// message); it always ends with TurnDone.
func (a *Agent) turn(ctx context.Context, chatID string, start starter) {
	cfg := a.Config()
	ts := &turnState{chatID: chatID, answerID: newMessageID()}
	var started TurnStarted
	var serr error
	chat, ver, err := a.chats.apply(chatID, func(c *Chat) bool {
		started, serr = start(c, ts)
		return serr == nil
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		a.finishTurn(chatID, Usage{}, err, false)
		return
	}
	text := started.Text
	// The file write goes on beside recall and the request; the answer's
	// write at the end of the turn never loses to it, and endTurn reports
	// a failure before TurnDone.
	saved := make(chan error, 1)
	ts.saved = saved
	if a.track() {
		go func() {
			defer a.done()
			saved <- a.chats.persist(chat, ver)
		}()
	} else {
		saved <- nil // closing: the turn ends at once
	}
	started.ChatID, started.AnswerID = chatID, ts.answerID
	a.emit(started)
	if chat.Project != "" {
		p, err := a.project(chat.Project)
		if err != nil {
			a.emit(Notice{ChatID: chatID, Text: fmt.Sprintf("The project's memory is unavailable: %v", err)})
		}
		ts.project = p
	}
	ts.pinned = a.pinnedInPrompt(ts.project)
	switch {
	case ts.prefix != "": // a continuation keeps the memories of the answer it continues
		a.emit(RecallDone{ChatID: chatID, Hits: ts.hits, Pinned: ts.pinned})
	case chat.AutoRecall:
		ts.hits = a.recall(chat, text, ts.project, cfg)
		a.emit(RecallDone{ChatID: chatID, Hits: ts.hits, Pinned: ts.pinned})
	default:
		a.emit(RecallDone{ChatID: chatID, Pinned: ts.pinned, Skipped: true})
	}
	err = a.converse(ctx, cfg, ts)
	a.endTurn(ctx, cfg, ts, text, err)
	// Bookkeeping after TurnDone: it rewrites the store file.
	if used := append(slices.Clip(ts.hits), ts.pinned...); len(used) > 0 {
		a.markUsed(used, ts.project)
	}
	a.global.pinnedEntries() // refresh the cache for the next turn
	if ts.project != nil {
		ts.project.store.pinnedEntries()
	}
}

// endTurn saves the answer (complete, partial or failed) and reports the
// end of the turn; after a completed turn it starts distillation.
func (a *Agent) endTurn(ctx context.Context, cfg Config, ts *turnState, user string, err error) {
	msg := Message{ID: ts.answerID, Role: RoleAssistant, Text: ts.answer.String(), Time: a.now(),
		Recalled: ts.hits, Pinned: ts.pinned, Tools: ts.tools, Cut: ts.cut}
	if ts.usage != (Usage{}) {
		u := ts.usage
		msg.Usage = &u
	}
	if ctx.Err() != nil {
		err = ctx.Err()
		msg.Stopped = true
	} else if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			msg.Err = ae.Message
		} else {
			msg.Err = err.Error()
		}
	}
	if err := <-ts.saved; err != nil {
		a.emit(Notice{ChatID: ts.chatID, Text: fmt.Sprintf("The chat could not be saved: %v", err)})
	}
	if msg.Text != "" || msg.Err != "" || msg.Stopped || len(msg.Tools) > 0 {
		if serr := a.chats.update(ts.chatID, func(c *Chat) bool {
			c.Messages = putAnswer(c.Messages, msg, ts.prefix != "")
			return true
		}); serr != nil && err == nil {
			err = serr
		}
	}
	a.finishTurn(ts.chatID, ts.usage, err, ts.cut)
	if err == nil && cfg.Distill && worthDistilling(user, msg.Text, msg.Tools) && a.track() {
		var projectDir string
		if ts.project != nil {
			projectDir = ts.project.store.dir
		}
		go func() {
			defer a.done()
			a.distill(cfg, ts.chatID, projectDir, turnExcerpt(user, msg.Tools, msg.Text))
		}()
	}
}

// converse runs the model calls of a turn: compaction if the chat is over
// budget, then steps of one answered model call and its tool calls, until
// the model answers in text or Options.MaxSteps calls were answered.
func (a *Agent) converse(ctx context.Context, cfg Config, ts *turnState) error {
	if cfg.BaseURL == "" {
		return errNoEndpoint()
	}
	if cfg.Model == "" {
		return errNoModel(cfg.BaseURL)
	}
	cv := &conversation{client: a.opts.Connect(cfg.BaseURL, cfg.APIKey), cfg: cfg, ts: ts, useTools: true}
	if err := a.compact(ctx, cv.client, cfg, ts.chatID, false); err != nil {
		return err
	}
	for step := 0; step < a.opts.MaxSteps; step++ {
		reply, tools, err := a.ask(ctx, cv, step == a.opts.MaxSteps-1)
		if err != nil {
			return err
		}
		if len(reply.ToolCalls) == 0 {
			if reply.Finish == "length" {
				ts.cut = true
				a.emit(Notice{ChatID: ts.chatID, Text: "The answer was cut off at the model's output limit."})
			}
			return nil
		}
		if !tools { // tools that were not offered are not run: the model was to answer
			if strings.TrimSpace(reply.Text) != "" {
				return nil
			}
			return &Error{Code: CodeBadResponse, Message: fmt.Sprintf("The model kept calling tools and gave "+
				"no answer within %d steps. Try again, or ask differently", a.opts.MaxSteps)}
		}
		cv.msgs = append(cv.msgs, llm.Message{Role: "assistant", Content: reply.Text, ToolCalls: reply.ToolCalls})
		cv.msgs = append(cv.msgs, a.runTools(ts, reply.ToolCalls)...)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// conversation is the state of a turn's model calls.
type conversation struct {
	client    llm.Completer
	cfg       Config
	ts        *turnState
	msgs      []llm.Message // this turn's tool calls and results
	useTools  bool          // false once the model refused tools
	compacted bool          // the chat was compacted for a context-too-long refusal
}

// ask makes the model call of one step, streaming its text into the answer,
// and reports whether the tools were offered (never on the last step). Two
// refusals that arrive before any text are answered by asking again, each
// at most once a turn, so the retries end: a model that does not support
// tools is asked without them (for the rest of the turn), and a context
// that is too long is compacted first. The retries do not count as steps.
func (a *Agent) ask(ctx context.Context, cv *conversation, last bool) (llm.Reply, bool, error) {
	for {
		tools := cv.useTools && !last
		reply, streamed, err := a.call(ctx, cv, tools)
		if err == nil {
			return reply, tools, nil
		}
		if ctx.Err() != nil {
			return reply, tools, ctx.Err()
		}
		var ae *Error
		switch {
		case errors.As(err, &ae) && ae.Code == CodeToolsUnsupported && tools && !streamed:
			cv.useTools = false
			a.emit(Notice{ChatID: cv.ts.chatID, Text: fmt.Sprintf("The model %s does not support tools, "+
				"so it answers without the memory tools.", cv.cfg.Model)})
		case errors.As(err, &ae) && ae.Code == CodeContextTooLong && !cv.compacted && !streamed:
			cv.compacted = true
			if cerr := a.compact(ctx, cv.client, cv.cfg, cv.ts.chatID, true); cerr != nil {
				return reply, tools, err
			}
		default:
			return reply, tools, err
		}
	}
}

// call sends the chat with this turn's tool messages, streaming the text
// into the answer (after a blank line when a step before wrote some) as
// Delta events; it reports whether any text arrived.
func (a *Agent) call(ctx context.Context, cv *conversation, tools bool) (llm.Reply, bool, error) {
	ts := cv.ts
	chat, err := a.chats.get(ts.chatID)
	if err != nil {
		return llm.Reply{}, false, err
	}
	req := llm.Request{Model: cv.cfg.Model, Messages: a.prompt(chat, ts, cv.cfg, tools)}
	req.Messages = append(req.Messages, cv.msgs...)
	if tools {
		req.Tools = toolDefs
	}
	sep := ts.answer.Len() > len(ts.prefix) // a continuation goes on where the answer stopped
	streamed := false
	reply, err := a.complete(ctx, cv.client, req, ts.chatID, func(s string) {
		if sep {
			ts.answer.WriteString("\n\n")
			s = "\n\n" + s
			sep = false
		}
		streamed = true
		ts.answer.WriteString(s)
		a.emit(Delta{ChatID: ts.chatID, Text: s})
	})
	ts.usage.PromptTokens += reply.Usage.PromptTokens
	ts.usage.CompletionTokens += reply.Usage.CompletionTokens
	return reply, streamed, err
}

// runTools runs the model's tool calls in order, records and reports them,
// and returns the tool messages that answer them; a failed tool's error is
// its answer.
func (a *Agent) runTools(ts *turnState, calls []llm.ToolCall) []llm.Message {
	msgs := make([]llm.Message, 0, len(calls))
	for _, call := range calls {
		a.emit(ToolCall{ChatID: ts.chatID, CallID: call.ID, Name: call.Name, Args: call.Args})
		result, err := a.runTool(ts.project, call)
		rec := ToolRecord{CallID: call.ID, Name: call.Name, Args: call.Args, Result: result}
		content := result
		if err != nil {
			rec.Failed, rec.Result = true, err.Error()
			content = "Error: " + err.Error()
		}
		ts.tools = append(ts.tools, rec)
		a.emit(ToolResult{ChatID: ts.chatID, CallID: call.ID, Name: call.Name, Result: rec.Result, Err: err})
		msgs = append(msgs, llm.Message{Role: "tool", Content: content, ToolCallID: call.ID})
	}
	return msgs
}

// complete makes one completion, retrying 429 and 5xx answers with backoff
// as long as nothing was streamed. Errors are classified.
func (a *Agent) complete(ctx context.Context, c llm.Completer, req llm.Request, chatID string, onText func(string)) (llm.Reply, error) {
	delay := a.opts.RetryDelay
	for attempt := 0; ; attempt++ {
		streamed := false
		reply, err := c.Complete(ctx, req, func(s string) {
			streamed = true
			if onText != nil {
				onText(s)
			}
		})
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return reply, ctx.Err()
		}
		err = classify(err, req.Model)
		var ae *Error
		if streamed || attempt == maxRetries || !errors.As(err, &ae) || !ae.retryable() {
			return reply, err
		}
		if chatID != "" {
			why := "is rate limiting requests (429)"
			if ae.Code == CodeServer {
				why = "had a server error"
			}
			a.emit(Notice{ChatID: chatID, Text: fmt.Sprintf("The endpoint %s; retrying in %s.", why,
				delay.Round(time.Millisecond))})
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return reply, ctx.Err()
		}
		delay *= 2
	}
}
