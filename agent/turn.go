package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"engram/agent/chat"
	"engram/agent/distill"
	"engram/agent/llm"
)

// turnState is what one turn accumulates.
type turnState struct {
	chatID    string
	userID    string // the ID of the user message answered
	answerID  string // the ID of the answer message
	prefix    string // the text of the answer this turn continues, if any
	project   *projectState
	hits      []RecalledHit
	pinned    []RecalledHit
	answer    strings.Builder
	reasoning strings.Builder
	thinking  time.Duration // the turn's thinking time so far
	thinkFrom time.Time     // when the current stretch of thinking began; zero when not thinking
	tools     []ToolRecord
	usage     Usage
	cut       bool         // the answer was cut at Config.MaxAnswerBytes or the model's output limit
	saved     <-chan error // the write of the user's message
	// localTitle is the title the chat's first message gave it, for the
	// model to replace after the answer ("" when the chat had a title).
	localTitle string
	client     llm.Completer // the endpoint's, once the turn calls the model
}

// maxRetryWait caps the wait a Retry-After header asks for.
const maxRetryWait = 60 * time.Second

// turn runs one turn that start prepares (Send's appends the user's
// message); it always ends with TurnDone.
//
// Streams that break: a stream that ends without a finish reason (and
// without [DONE]), or that goes silent for Config.StreamIdleTimeout, ends
// the turn with CodeInterrupted or CodeTimeout and TurnDone.Interrupted:
// what arrived is kept, marked Message.Interrupted, not distilled and not
// sent back, and Retry asks again. A stream with nothing in it is
// CodeBadResponse; an answer that has not started within
// Config.FirstByteTimeout is CodeTimeout; one over Config.MaxAnswerBytes
// is cut there (Message.Cut, with a Notice). Cancel, or cancelling the
// context given to Send, ends the turn with TurnDone{Err: context.Canceled}
// (the context's error: a deadline gives context.DeadlineExceeded); the
// partial answer stays in the chat marked Stopped and is not distilled.
func (a *Agent) turn(ctx context.Context, chatID string, start starter) {
	cfg := a.Config()
	ts := &turnState{chatID: chatID, answerID: chat.NewMessageID()}
	var started TurnStarted
	var serr error
	chat, ver, err := a.chats.Change(chatID, func(c *Chat) bool {
		started, serr = start(c, ts)
		return serr == nil
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		a.finishTurn(chatID, Usage{}, err, false, false)
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
			saved <- a.chats.Persist(chat, ver)
		}()
	} else {
		saved <- nil // closing: the turn ends at once
	}
	started.ChatID, started.AnswerID = chatID, ts.answerID
	a.emit(started)
	if chat.Project != "" {
		p, err := a.project(chat.Project)
		if err != nil {
			a.notice(chatID, KeyProjectMemory, "Err", err)
		}
		ts.project = p
	}
	if !chat.Temporary {
		ts.pinned = a.pinnedInPrompt(ts.project)
	}
	switch {
	case chat.Temporary:
		a.emit(RecallDone{ChatID: chatID, Skipped: true})
	case ts.prefix != "": // a continuation keeps the memories of the answer it continues
		a.emit(RecallDone{ChatID: chatID, Hits: ts.hits, Pinned: ts.pinned})
	case chat.AutoRecall:
		// A copy: chat is being written to its file meanwhile. The recall
		// sees the chat up to the message answered, as the first time did
		// when the answer is asked for again.
		asked := chat
		if u := slices.IndexFunc(chat.Messages, func(m Message) bool { return m.ID == ts.userID }); u >= 0 {
			asked.Messages = chat.Messages[:u+1]
		}
		ts.hits = a.recall(asked, text, ts.project, cfg)
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
	msg := Message{ID: ts.answerID, ReplyTo: ts.userID, Role: RoleAssistant, Text: ts.answer.String(), Time: a.now(),
		Recalled: ts.hits, Pinned: ts.pinned, Tools: ts.tools, Reasoning: ts.reasoning.String(),
		ThinkingTime: ts.thinking, Cut: ts.cut}
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
			msg.Err, msg.ErrKey, msg.ErrArgs = ae.Message, string(ae.Words.Key), ae.Words.Args
			msg.Interrupted = ae.Code == CodeInterrupted ||
				ae.Code == CodeTimeout && (msg.Text != "" || msg.Reasoning != "")
		} else {
			msg.Err = err.Error()
		}
	}
	if err := <-ts.saved; err != nil {
		a.notice(ts.chatID, KeyChatNotSaved, "Err", err)
	}
	if msg.Text != "" || msg.Reasoning != "" || msg.Err != "" || msg.Stopped || len(msg.Tools) > 0 {
		if serr := a.chats.Update(ts.chatID, func(c *Chat) bool {
			c.Messages = putAnswer(c.Messages, msg, ts.prefix != "")
			return true
		}); serr != nil && err == nil {
			err = serr
		}
	}
	a.finishTurn(ts.chatID, ts.usage, err, ts.cut, msg.Interrupted)
	if err == nil && ts.localTitle != "" && msg.Text != "" && ts.client != nil && cfg.BaseURL != "" && a.track() {
		go func() {
			defer a.done()
			a.nameChat(ts.client, cfg.Model, ts.chatID, ts.localTitle, user, msg.Text)
		}()
	}
	if err == nil && !msg.Cut && a.capturing(cfg, ts.chatID) && distill.WorthDistilling(user, msg.Text, msg.Tools) && a.track() {
		var projectDir string
		if ts.project != nil {
			projectDir = ts.project.store.dir
		}
		go func() {
			defer a.done()
			a.distill(cfg, ts.chatID, projectDir, user, distill.Excerpt(user, msg.Tools, msg.Text))
		}()
	}
}

// converse runs the model calls of a turn: compaction if the chat is over
// budget, then steps of one answered model call and its tool calls, until
// the model answers in text or Options.MaxSteps calls were answered. The
// last call is offered no tools; tools it calls anyway are not run, and
// with no text either the turn ends with CodeBadResponse.
func (a *Agent) converse(ctx context.Context, cfg Config, ts *turnState) error {
	if cfg.BaseURL == "" {
		return errNoEndpoint()
	}
	if cfg.Model == "" {
		return errNoModel(cfg.BaseURL)
	}
	ts.client = a.opts.Connect(cfg.endpoint())
	cv := &conversation{client: ts.client, cfg: cfg, ts: ts, useTools: true}
	if err := a.compact(ctx, cv.client, cfg, ts.chatID, false); err != nil {
		return err
	}
	for step := 0; step < a.opts.MaxSteps; step++ {
		reply, tools, err := a.ask(ctx, cv, step == a.opts.MaxSteps-1)
		if err != nil {
			return err
		}
		if reply.Cut {
			ts.cut = true
			a.notice(ts.chatID, KeyAnswerTooLong, "Size", sizeOf(cfg.MaxAnswerBytes))
			return nil
		}
		if len(reply.ToolCalls) == 0 {
			if reply.Finish == "length" {
				ts.cut = true
				a.notice(ts.chatID, KeyOutputLimit)
			} else if ts.answer.Len() == 0 && len(ts.tools) == 0 {
				return errNoAnswer(ts.reasoning.Len() > 0)
			}
			return nil
		}
		if !tools { // tools that were not offered are not run: the model was to answer
			if strings.TrimSpace(reply.Text) != "" {
				return nil
			}
			return newError(CodeBadResponse, nil, KeyToolLoop, "Steps", a.opts.MaxSteps)
		}
		// DeepSeek's thinking mode wants the reasoning of a tool call back
		// in the follow-ups of the turn (and nowhere else).
		var replay string
		if reply.ReasoningForm == llm.ReasoningContent {
			replay = reply.Reasoning
		}
		cv.msgs = append(cv.msgs, llm.Message{Role: "assistant", Content: reply.Text, ToolCalls: reply.ToolCalls,
			Reasoning: replay})
		cv.msgs = append(cv.msgs, a.runTools(ctx, ts, reply.ToolCalls)...)
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
			a.notice(cv.ts.chatID, KeyNoTools, "Model", cv.cfg.Model)
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
// Delta events and the reasoning apart as ReasoningDelta events between
// ThinkingStarted and ThinkingDone; it reports whether anything arrived.
//
// Reasoning models think before they answer, in one of three forms that
// the adapter tells apart while streaming: a <think>, <thinking> or
// <reasoning> section at the start of the content, a reasoning_content
// delta (DeepSeek, vLLM), or a reasoning delta (LM Studio, Ollama for
// gpt-oss). The reasoning is saved as the answer's Message.Reasoning with
// its ThinkingTime and never sent back to the model, to distillation or to
// compaction, with the one exception DeepSeek's API requires: within a
// turn, the follow-up requests after a tool call carry that call's
// reasoning_content (converse).
func (a *Agent) call(ctx context.Context, cv *conversation, tools bool) (llm.Reply, bool, error) {
	ts := cv.ts
	chat, err := a.chats.Get(ts.chatID)
	if err != nil {
		return llm.Reply{}, false, err
	}
	// the prompt tells of the memory tools where they are offered
	req := llm.Request{Model: cv.cfg.Model, Messages: a.prompt(chat, ts, cv.cfg, tools && !chat.Temporary)}
	req.Messages = append(req.Messages, cv.msgs...)
	if tools {
		req.Tools = a.offeredTools(chat.Temporary)
	}
	// a continuation goes on where the answer stopped
	sep, rsep := ts.answer.Len() > len(ts.prefix), ts.reasoning.Len() > 0
	streamed := false
	reply, err := a.complete(ctx, cv.client, req, ts.chatID, func(d llm.Delta) {
		streamed = true
		if d.Reasoning != "" {
			s := d.Reasoning
			if rsep {
				s, rsep = "\n\n"+s, false
			}
			if ts.thinkFrom.IsZero() {
				ts.thinkFrom = a.now()
				a.emit(ThinkingStarted{ChatID: ts.chatID, At: ts.thinkFrom})
			}
			ts.reasoning.WriteString(s)
			a.emit(ReasoningDelta{ChatID: ts.chatID, Text: s})
		}
		if d.Text == "" {
			return
		}
		a.stopThinking(ts)
		s := d.Text
		if sep {
			s, sep = "\n\n"+s, false
		}
		ts.answer.WriteString(s)
		a.emit(Delta{ChatID: ts.chatID, Text: s})
	})
	a.stopThinking(ts)
	ts.usage.PromptTokens += reply.Usage.PromptTokens
	ts.usage.CompletionTokens += reply.Usage.CompletionTokens
	return reply, streamed, err
}

// stopThinking ends the current stretch of thinking, if any, with
// ThinkingDone.
func (a *Agent) stopThinking(ts *turnState) {
	if ts.thinkFrom.IsZero() {
		return
	}
	took := a.now().Sub(ts.thinkFrom)
	ts.thinking += took
	ts.thinkFrom = time.Time{}
	a.emit(ThinkingDone{ChatID: ts.chatID, Took: took, Total: ts.thinking})
}

// runTools runs the model's tool calls in order, records and reports them,
// and returns the tool messages that answer them; a failed tool's error is
// its answer.
func (a *Agent) runTools(ctx context.Context, ts *turnState, calls []llm.ToolCall) []llm.Message {
	msgs := make([]llm.Message, 0, len(calls))
	for _, call := range calls {
		a.emit(ToolCall{ChatID: ts.chatID, CallID: call.ID, Name: call.Name, Args: call.Args})
		result, err := a.runTool(ctx, ts, call)
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
// as long as nothing was streamed; a Retry-After of the endpoint replaces
// the backoff's wait, up to maxRetryWait. Errors are classified.
func (a *Agent) complete(ctx context.Context, c llm.Completer, req llm.Request, chatID string, onDelta func(llm.Delta)) (llm.Reply, error) {
	delay := a.opts.RetryDelay
	for attempt := 0; ; attempt++ {
		streamed := false
		reply, err := c.Complete(ctx, req, func(d llm.Delta) {
			streamed = true
			if onDelta != nil {
				onDelta(d)
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
		wait, asked := delay, ""
		var se *llm.StatusError
		if errors.As(err, &se) && se.RetryAfter > 0 {
			wait, asked = min(se.RetryAfter, maxRetryWait), "yes"
		}
		if chatID != "" {
			key := KeyRetryRateLimited
			if ae.Code == CodeServer {
				key = KeyRetryServer
			}
			a.notice(chatID, key, "Wait", wait.Round(time.Millisecond), "AsAsked", asked)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return reply, ctx.Err()
		}
		delay *= 2
	}
}

// lastUser is the index of the last user message (-1 for none).
func lastUser(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser {
			return i
		}
	}
	return -1
}

// errNoAnswer is the error of a model call that finished with no answer
// and no tool call.
func errNoAnswer(reasoned bool) *Error {
	if reasoned {
		return newError(CodeBadResponse, nil, KeyOnlyReasoned)
	}
	return newError(CodeBadResponse, nil, KeyNoAnswer)
}

// sizeOf says a size in bytes for people: "4 MB", "512 KB".
func sizeOf(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
