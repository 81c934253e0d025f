package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"engram/agent"
	"engram/cmd/internal/version"
)

func init() {
	register("chat", "one chat turn from the terminal: streams the answer, shows recalled memories",
		runChat)
}

// runChat is `engramctl chat [--chat ID] [--project DIR] [--no-recall]
// [--approve] [--temporary] MESSAGE` or `engramctl chat --chat ID --retry`:
// one turn (of a temporary chat with --temporary: see
// agent.NewTemporaryChat), the answer
// streamed to stdout, and on stderr the model's reasoning, the recalled
// memories, tool calls, notices and the memories distilled afterwards (it
// waits for the distillation). A MESSAGE of "-" is read from stdin; --retry
// asks again for the answer to the chat's last message, after it failed or
// broke off. Several may run on one chat at once: each turn is kept.
func runChat(ctx context.Context, args []string, env *cliEnv) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	chatID := fs.String("chat", "", "continue the chat with this `ID` (default: a new chat)")
	project := fs.String("project", "", "pin the project folder `DIR` to the chat (its AGENTS.md and memories)")
	noRecall := fs.Bool("no-recall", false, "do not recall memories for this turn")
	retry := fs.Bool("retry", false, "ask again for the answer to the last message of the chat (with --chat)")
	temporary := fs.Bool("temporary", false, "a chat memory does not touch: no recall, no pinned memories, nothing saved, no chat file")
	approve := fs.Bool("approve", false, "let the model call the tools of MCP servers (mcp.json) that ask first")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: engramctl chat [--chat ID] [--project DIR] [--no-recall] [--approve] [--temporary] MESSAGE\n"+
			"       engramctl chat --chat ID --retry")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	text := strings.Join(fs.Args(), " ")
	if *retry && (*chatID == "" || text != "") || *temporary && (*chatID != "" || *retry) {
		fs.Usage()
		return exitUsage
	}
	if text == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			fmt.Fprintf(env.Stderr, "engramctl chat: read stdin: %v\n", err)
			return exitError
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" && !*retry {
		fs.Usage()
		return exitUsage
	}

	paths := enginePaths(env.Getenv)
	cfg, err := agent.ResolveConfig(ctx, paths, env.Getenv, nil)
	if err != nil {
		fmt.Fprintf(env.Stderr, "engramctl chat: %v\n", err)
		return exitError
	}
	a, err := agent.New(agent.Options{Config: cfg, Paths: paths, Getenv: env.Getenv, ToolServers: true,
		Version: version.String()})
	if err != nil {
		fmt.Fprintf(env.Stderr, "engramctl chat: %v\n", err)
		return exitError
	}
	defer a.Close()
	waitToolServers(ctx, a, env.Stderr)

	id := *chatID
	if *temporary {
		id = a.NewTemporaryChat().ID
	}
	if id == "" {
		c, err := a.NewChat()
		if err != nil {
			fmt.Fprintf(env.Stderr, "engramctl chat: %v\n", err)
			return exitError
		}
		id = c.ID
	}
	c, err := a.Chat(id)
	if errors.Is(err, agent.ErrChatNotFound) {
		fmt.Fprintf(env.Stderr, "engramctl chat: no chat has the ID %q\n", id)
		return exitNotFound
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "engramctl chat: %v\n", err)
		return exitError
	}
	if *project != "" {
		if err := a.SetProject(id, *project); err != nil {
			fmt.Fprintf(env.Stderr, "engramctl chat: %v\n", err)
			return exitError
		}
	}
	if *noRecall && c.AutoRecall {
		if err := a.SetAutoRecall(id, false); err != nil {
			fmt.Fprintf(env.Stderr, "engramctl chat: %v\n", err)
			return exitError
		}
		defer func() { _ = a.SetAutoRecall(id, true) }() // only for this turn
	}

	send := a.Send
	if *retry {
		send = func(ctx context.Context, id, _ string) error { return a.Retry(ctx, id) }
	}
	if err := send(ctx, id, text); err != nil {
		fmt.Fprintf(env.Stderr, "engramctl chat: %v\n", err)
		return exitError
	}
	code := exitOK
	p := &chatPrinter{out: env.Stdout, errw: env.Stderr, chatID: id}
	for e := range a.Events() {
		if done, ok := e.(agent.TurnDone); ok && done.ChatID == id {
			code = p.done(done)
			break
		}
		if ask, ok := e.(agent.ToolApproval); ok && ask.ChatID == id {
			answerApproval(a, ask, *approve, env.Stderr)
			continue
		}
		p.print(e)
	}
	// Wait for this turn's distillation (Close cancels it on Ctrl-C), then
	// print what it reported.
	idle := make(chan struct{})
	go func() { a.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-ctx.Done():
	}
	_ = a.Close() // closes the event channel after queuing what is left
	for e := range a.Events() {
		p.print(e)
	}
	if *temporary {
		fmt.Fprintln(env.Stderr, "chat: temporary, not kept")
	} else {
		fmt.Fprintf(env.Stderr, "chat: %s\n", id)
	}
	return code
}

// chatPrinter writes a turn's events: the answer to out, the rest to errw.
type chatPrinter struct {
	out, errw io.Writer
	chatID    string
	answered  bool // some answer text was printed
}

func (p *chatPrinter) print(e agent.Event) {
	if e.Chat() != "" && e.Chat() != p.chatID {
		return
	}
	switch e := e.(type) {
	case agent.RecallDone:
		switch {
		case e.Skipped:
			fmt.Fprintln(p.errw, "recall: off")
		case len(e.Hits) == 0:
			fmt.Fprintln(p.errw, "recall: nothing relevant")
		default:
			fmt.Fprintf(p.errw, "recalled %s:\n", memories(len(e.Hits)))
			for _, h := range e.Hits {
				fmt.Fprintf(p.errw, "  [%s %s] %s (%s, score %.2f)\n", h.Scope, h.Entry.Kind, oneLine(h.Entry.Text),
					h.Entry.ID, h.Score)
			}
		}
	case agent.ThinkingStarted:
		fmt.Fprint(p.errw, "thinking: ")
	case agent.ReasoningDelta:
		fmt.Fprint(p.errw, e.Text)
	case agent.ThinkingDone:
		fmt.Fprintf(p.errw, "\n(thought for %s)\n", e.Took.Round(100*time.Millisecond))
	case agent.Delta:
		p.answered = true
		fmt.Fprint(p.out, e.Text)
	case agent.ToolCall:
		fmt.Fprintf(p.errw, "\ntool %s %s\n", e.Name, e.Args)
	case agent.ToolResult:
		if e.Err != nil {
			fmt.Fprintf(p.errw, "  failed: %v\n", e.Err)
		} else {
			fmt.Fprintf(p.errw, "  → %s\n", oneLine(e.Result))
		}
	case agent.Notice:
		fmt.Fprintf(p.errw, "note: %s\n", e.Text)
	case agent.MemoriesSaved:
		if e.Err != nil {
			fmt.Fprintf(p.errw, "distill: %v\n", e.Err)
			return
		}
		fmt.Fprintf(p.errw, "saved %s (%s):\n", memories(len(e.Entries)), e.Scope)
		for _, m := range e.Entries {
			fmt.Fprintf(p.errw, "  [%s] %s (%s)\n", m.Kind, oneLine(m.Text), m.ID)
		}
	case agent.MemoryChanged:
		if e.Err != nil {
			fmt.Fprintf(p.errw, "memory: %v\n", e.Err)
		}
	case agent.InstructionsChanged:
		switch {
		case e.Err != nil:
			fmt.Fprintf(p.errw, "instructions: %v\n", e.Err)
		case e.Truncated:
			fmt.Fprintf(p.errw, "instructions: %s is over 64 KiB; only its start is used\n", e.Path)
		}
	}
}

// done reports the end of the turn and returns the exit code.
func (p *chatPrinter) done(e agent.TurnDone) int {
	if p.answered {
		fmt.Fprintln(p.out)
	}
	var ae *agent.Error
	switch {
	case e.Err == nil:
		return exitOK
	case errors.Is(e.Err, context.Canceled):
		fmt.Fprintln(p.errw, "stopped")
	case errors.As(e.Err, &ae):
		fmt.Fprintf(p.errw, "engramctl chat: %s\n", ae.Message)
	default:
		fmt.Fprintf(p.errw, "engramctl chat: %v\n", e.Err)
	}
	if e.Interrupted {
		fmt.Fprintf(p.errw, "to ask again: engramctl chat --chat %s --retry\n", p.chatID)
	}
	return exitError
}

// memories says "1 memory" or "N memories".
func memories(n int) string {
	if n == 1 {
		return "1 memory"
	}
	return fmt.Sprintf("%d memories", n)
}

// oneLine collapses white space so a memory prints on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// toolServerWait is how long engramctl chat waits for the MCP servers of
// mcp.json to start, so that one turn sees their tools.
const toolServerWait = 10 * time.Second

// waitToolServers waits for the MCP servers to start and says which could
// not.
func waitToolServers(ctx context.Context, a *agent.Agent, errw io.Writer) {
	wctx, cancel := context.WithTimeout(ctx, toolServerWait)
	defer cancel()
	a.WaitToolServers(wctx)
	for _, st := range a.ToolServers() {
		switch {
		case st.Err != nil:
			fmt.Fprintf(errw, "mcp: %v\n", st.Err)
		case st.State == "starting":
			fmt.Fprintf(errw, "mcp: %s is still starting; its tools are not offered\n", st.Server.Name)
		}
	}
}

// answerApproval answers a tool call that asks first: allowed with
// --approve, else declined, and says so.
func answerApproval(a *agent.Agent, ask agent.ToolApproval, approve bool, errw io.Writer) {
	d := agent.Deny
	if approve {
		d = agent.AllowOnce
		fmt.Fprintf(errw, "  allowed (--approve): %s of %s\n", ask.Tool, ask.Server)
	} else {
		fmt.Fprintf(errw, "  declined: %s of the MCP server %s asks first; run with --approve to allow it\n",
			ask.Tool, ask.Server)
	}
	if err := a.Approve(ask.ChatID, ask.CallID, d); err != nil {
		fmt.Fprintf(errw, "  %v\n", err)
	}
}
