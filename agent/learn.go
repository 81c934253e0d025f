package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"engram/memory/durable"
)

// LearnOptions tune Learn.
type LearnOptions struct {
	// ChatIDs are the chats to learn from (nil: every chat), oldest first.
	ChatIDs []string
	// Delay is the pause between two distillation calls, so that a long
	// run does not flood the endpoint (0: none).
	Delay time.Duration
	// ProgressFile records the turns done per chat after each turn, so an
	// interrupted run resumes where it stopped ("": Paths.LearnProgress).
	ProgressFile string
	// OnProgress, if set, is called after each turn (and each skipped chat)
	// on Learn's goroutine.
	OnProgress func(LearnProgress)
}

// LearnProgress is where a Learn run is.
type LearnProgress struct {
	Chat, Chats int    // chats finished, of all
	ChatID      string // the chat of this step
	Title       string
	Turn, Turns int // turns done in that chat, of all
	Totals      LearnTotals
}

// LearnTotals count what a Learn run did.
type LearnTotals struct {
	Turns     int // distilled (skipped small talk and turns done before are not counted)
	Saved     int
	Updated   int
	Forgotten int
	Proposed  int
	Suggested int
	Secrets   int
	Failed    int // turns whose distillation failed (they are retried by the next run)
}

// learnProgress is the ProgressFile: how many turns of each chat are done.
type learnProgress struct {
	Version int            `json:"version"`
	Chats   map[string]int `json:"chats"`
}

// Learn runs consolidation over the turns of existing chats, as if each
// had just been answered: for people who start using memory after months of
// chats. Chats whose capture is off are skipped; the others use their
// capture mode (auto when the setting is off: the person asked for this).
// It is throttled by Delay, resumable through ProgressFile and reports
// through OnProgress and the usual memory events. A turn whose call fails
// stops the run with the error (its progress is kept, so the next run
// starts with it); so does ctx, or closing the agent.
func (a *Agent) Learn(ctx context.Context, o LearnOptions) (LearnTotals, error) {
	var tot LearnTotals
	if !a.track() {
		return tot, errClosed
	}
	defer a.done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(a.ctx, cancel)
	defer stop()
	cfg := a.Config()
	if cfg.BaseURL == "" {
		return tot, errNoEndpoint()
	}
	if cfg.Model == "" {
		return tot, errNoModel(cfg.BaseURL)
	}
	if o.ProgressFile == "" {
		o.ProgressFile = a.opts.Paths.LearnProgress()
	}
	prog, err := readLearnProgress(o.ProgressFile)
	if err != nil {
		return tot, err
	}
	chats, err := a.learnChats(o.ChatIDs)
	if err != nil {
		return tot, err
	}
	first := true
	for n, c := range chats {
		turns := chatTurns(c.Messages)
		p := LearnProgress{Chat: n, Chats: len(chats), ChatID: c.ID, Title: c.Title, Turns: len(turns)}
		mode := captureMode(cfg, c.Info)
		if c.Capture == CaptureOff {
			p.Chat, p.Turn = n+1, len(turns)
			a.learnReport(o, p, tot)
			continue
		}
		if mode == CaptureOff {
			mode = CaptureAuto
		}
		var proj *projectState
		if c.Project != "" {
			if proj, err = a.project(c.Project); err != nil {
				return tot, fmt.Errorf("learn from chat %s: %w", c.ID, err)
			}
		}
		for i := prog.Chats[c.ID]; i < len(turns); i++ {
			t := turns[i]
			if worthDistilling(t.user, t.answer.Text, t.answer.Tools) {
				if !first && o.Delay > 0 {
					select {
					case <-time.After(o.Delay):
					case <-ctx.Done():
						return tot, ctx.Err()
					}
				}
				first = false
				res, err := a.consolidateTurn(ctx, cfg, mode, c.ID, proj, t.user,
					turnExcerpt(t.user, t.answer.Tools, t.answer.Text))
				if err != nil {
					tot.Failed++
					return tot, fmt.Errorf("learn from chat %s, turn %d: %w", c.ID, i+1, err)
				}
				a.report(c.ID, res)
				tot.add(res)
			}
			prog.Chats[c.ID] = i + 1
			if err := writeLearnProgress(o.ProgressFile, prog); err != nil {
				return tot, err
			}
			p.Turn = i + 1
			a.learnReport(o, p, tot)
		}
		p.Chat, p.Turn = n+1, len(turns)
		a.learnReport(o, p, tot)
	}
	a.global.pinnedEntries()
	return tot, nil
}

func (a *Agent) learnReport(o LearnOptions, p LearnProgress, tot LearnTotals) {
	if o.OnProgress != nil {
		p.Totals = tot
		o.OnProgress(p)
	}
}

func (t *LearnTotals) add(res applied) {
	t.Turns++
	for _, es := range res.saved {
		t.Saved += len(es)
	}
	t.Updated += len(res.revised.Updated)
	t.Forgotten += len(res.revised.Forgotten)
	t.Proposed += len(res.revised.Proposed)
	t.Suggested += res.suggested
	t.Secrets += res.secrets
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

// learnTurn is a user message and the answer that completed it.
type learnTurn struct {
	user   string
	answer Message
}

// chatTurns are a chat's completed turns, in order: a user message followed
// by an answer that neither failed nor was stopped.
func chatTurns(msgs []Message) []learnTurn {
	var out []learnTurn
	for i := 0; i+1 < len(msgs); i++ {
		u, r := msgs[i], msgs[i+1]
		if u.Role == RoleUser && r.Role == RoleAssistant && r.Err == "" && !r.Stopped && r.Text != "" {
			out = append(out, learnTurn{user: u.Text, answer: r})
		}
	}
	return out
}

func readLearnProgress(path string) (learnProgress, error) {
	p := learnProgress{Version: 1, Chats: map[string]int{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("read learn progress %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("read learn progress %s: %w (remove it to start over)", path, err)
	}
	if p.Chats == nil {
		p.Chats = map[string]int{}
	}
	return p, nil
}

func writeLearnProgress(path string, p learnProgress) error {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("write learn progress: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write learn progress: %w", err)
	}
	if err := durable.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("write learn progress %s: %w", path, err)
	}
	return nil
}
