package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"engram/agent"
)

// memoryLearn is `engramctl memory learn [--chat ID | --all] [--delay D]
// [--restart]`: consolidation over existing chats (see agent.Learn), one
// progress line per turn on stderr, the totals on stdout. An interrupted
// run (Ctrl-C, a kill, a failed call) resumes where it stopped; --restart
// starts over.
func memoryLearn(r *memoryRun) func() int {
	chat := r.flags.fs.String("chat", "", "learn from the chat with this ID")
	all := r.flags.fs.Bool("all", false, "learn from every chat")
	delay := r.flags.fs.Duration("delay", time.Second, "pause between two model calls")
	restart := r.flags.fs.Bool("restart", false, "forget the progress of earlier runs")
	return func() int {
		switch {
		case len(r.args) > 0:
			return r.usageError("unexpected argument %q", r.args[0])
		case (*chat == "") == !*all:
			return r.usageError("give either --chat ID or --all")
		case r.flags.store != "" || r.flags.project != "":
			return r.usageError("--store and --project do not apply: learn uses the chats' own stores")
		case *delay < 0:
			return r.usageError("--delay must not be negative")
		}
		paths := enginePaths(r.env.Getenv)
		if *restart {
			if err := os.Remove(paths.LearnProgress()); err != nil && !errors.Is(err, os.ErrNotExist) {
				return r.fail(fmt.Errorf("restart: %w", err))
			}
		}
		cfg, err := agent.ResolveConfig(r.ctx, paths, r.env.Getenv, nil)
		if err != nil {
			return r.fail(err)
		}
		a, err := agent.New(agent.Options{Config: cfg, Paths: paths, Getenv: r.env.Getenv})
		if err != nil {
			return r.fail(err)
		}
		drained := make(chan struct{})
		go func() {
			for range a.Events() { // the totals say what happened
			}
			close(drained)
		}()
		defer func() {
			a.Close()
			<-drained
		}()
		opts := agent.LearnOptions{Delay: *delay, OnProgress: func(p agent.LearnProgress) {
			if p.Turn == 0 && p.Turns > 0 {
				return
			}
			t := p.Totals
			fmt.Fprintf(r.env.Stderr, "learn: chat %d/%d %q: turn %d/%d · %d saved, %d updated, %d forgotten\n",
				min(p.Chat+1, p.Chats), p.Chats, p.Title, p.Turn, p.Turns, t.Saved, t.Updated, t.Forgotten)
		}}
		if *chat != "" {
			opts.ChatIDs = []string{*chat}
		}
		tot, err := a.Learn(r.ctx, opts)
		r.printLearned(tot)
		if err != nil {
			return r.fail(fmt.Errorf("%w (run again to resume)", err))
		}
		return exitOK
	}
}

func (r *memoryRun) printLearned(t agent.LearnTotals) {
	if r.flags.json {
		r.writeJSON(t)
		return
	}
	fmt.Fprintf(r.env.Stdout, "learned from %d turns: %d saved, %d updated, %d forgotten, %d proposed for forgetting, "+
		"%d suggestions, %d secrets left out\n", t.Turns, t.Saved, t.Updated, t.Forgotten, t.Proposed, t.Suggested, t.Secrets)
}
