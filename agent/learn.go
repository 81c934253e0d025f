package agent

import (
	"context"
	"fmt"
	"sort"

	"engram/agent/distill"
)

// The Learn types of package distill.
type (
	LearnOptions  = distill.LearnOptions
	LearnProgress = distill.LearnProgress
	LearnTotals   = distill.LearnTotals
)

// Learn runs consolidation over the turns of existing chats, as if each
// had just been answered: for people who start using memory after months of
// chats. Chats whose capture is off are skipped; the others use their
// capture mode (auto when the setting is off: the person asked for this).
// It is throttled by Delay, resumable through ProgressFile and reports
// through OnProgress and the usual memory events. A turn whose call fails
// stops the run with the error (its progress is kept, so the next run
// starts with it); so does ctx, or closing the agent.
func (a *Agent) Learn(ctx context.Context, o LearnOptions) (LearnTotals, error) {
	if !a.track() {
		return LearnTotals{}, errClosed
	}
	defer a.done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(a.ctx, cancel)
	defer stop()
	cfg := a.Config()
	if cfg.BaseURL == "" {
		return LearnTotals{}, errNoEndpoint()
	}
	if cfg.Model == "" {
		return LearnTotals{}, errNoModel(cfg.BaseURL)
	}
	if o.ProgressFile == "" {
		o.ProgressFile = a.opts.Paths.LearnProgress()
	}
	chats, err := a.learnChats(o.ChatIDs)
	if err != nil {
		return LearnTotals{}, err
	}
	tot, err := a.pipe.Learn(ctx, distill.Learner{
		Ask:   a.asker(cfg),
		Chats: chats,
		Turn: func(c Chat) (distill.Turn, bool, error) {
			if c.Capture == CaptureOff {
				return distill.Turn{}, true, nil
			}
			mode := captureMode(cfg, c.Info)
			if mode == CaptureOff {
				mode = CaptureAuto
			}
			t, err := a.distillTurn(c.ID, mode, c.Project)
			return t, false, err
		},
		Report: a.report,
	}, o)
	if err == nil {
		a.global.pinnedEntries() // refresh the cache for the next turn
	}
	return tot, err
}

// learnChats returns the chats to learn from, oldest first.
func (a *Agent) learnChats(ids []string) ([]Chat, error) {
	if ids == nil {
		for _, c := range a.chats.List() {
			ids = append(ids, c.ID)
		}
	}
	out := make([]Chat, 0, len(ids))
	for _, id := range ids {
		c, err := a.chats.Get(id)
		if err != nil {
			return nil, fmt.Errorf("learn: %w", err)
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}
