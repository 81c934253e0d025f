package distill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"engram/agent/chat"
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
	// interrupted run resumes where it stopped ("": the agent's
	// Paths.LearnProgress).
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

// add counts the outcome of one distilled turn.
func (t *LearnTotals) add(res Outcome) {
	t.Turns++
	for _, es := range res.Saved {
		t.Saved += len(es)
	}
	t.Updated += len(res.Revised.Updated)
	t.Forgotten += len(res.Revised.Forgotten)
	t.Proposed += len(res.Revised.Proposed)
	t.Suggested += res.Suggested
	t.Secrets += res.Secrets
}

// Learner is what Learn needs from its host for one run.
type Learner struct {
	Ask   Ask
	Chats []chat.Chat // oldest first
	// Turn returns the turn of chat c to consolidate, with its capture mode
	// and stores, leaving User and Excerpt to Learn; skip reports a chat
	// whose capture is off.
	Turn func(c chat.Chat) (t Turn, skip bool, err error)
	// Report is called with the outcome of every distilled turn.
	Report func(chatID string, o Outcome)
}

// Learn runs consolidation over the turns of existing chats, as if each
// had just been answered: for people who start using memory after months of
// chats. It is throttled by o.Delay, resumable through o.ProgressFile and
// reports through o.OnProgress and l.Report. A turn whose call fails stops
// the run with the error (its progress is kept, so the next run starts with
// it); so does ctx.
func (p *Pipeline) Learn(ctx context.Context, l Learner, o LearnOptions) (LearnTotals, error) {
	var tot LearnTotals
	prog, err := readLearnProgress(o.ProgressFile)
	if err != nil {
		return tot, err
	}
	report := func(pr LearnProgress) {
		if o.OnProgress != nil {
			pr.Totals = tot
			o.OnProgress(pr)
		}
	}
	first := true
	for n, c := range l.Chats {
		turns := chatTurns(c.Messages)
		pr := LearnProgress{Chat: n, Chats: len(l.Chats), ChatID: c.ID, Title: c.Title, Turns: len(turns)}
		t, skip, err := l.Turn(c)
		if err != nil {
			return tot, fmt.Errorf("learn from chat %s: %w", c.ID, err)
		}
		if skip {
			pr.Chat, pr.Turn = n+1, len(turns)
			report(pr)
			continue
		}
		for i := prog.Chats[c.ID]; i < len(turns); i++ {
			turn := turns[i]
			if WorthDistilling(turn.user, turn.answer.Text, turn.answer.Tools) {
				if !first && o.Delay > 0 {
					select {
					case <-time.After(o.Delay):
					case <-ctx.Done():
						return tot, ctx.Err()
					}
				}
				first = false
				t.User, t.Excerpt = turn.user, Excerpt(turn.user, turn.answer.Tools, turn.answer.Text)
				res, err := p.Consolidate(ctx, l.Ask, t)
				if err != nil {
					tot.Failed++
					return tot, fmt.Errorf("learn from chat %s, turn %d: %w", c.ID, i+1, err)
				}
				l.Report(c.ID, res)
				tot.add(res)
			}
			prog.Chats[c.ID] = i + 1
			if err := writeLearnProgress(o.ProgressFile, prog); err != nil {
				return tot, err
			}
			pr.Turn = i + 1
			report(pr)
		}
		pr.Chat, pr.Turn = n+1, len(turns)
		report(pr)
	}
	return tot, nil
}

// learnProgress is the ProgressFile: how many turns of each chat are done.
type learnProgress struct {
	Version int            `json:"version"`
	Chats   map[string]int `json:"chats"`
}

// learnTurn is a user message and the answer that completed it.
type learnTurn struct {
	user   string
	answer chat.Message
}

// chatTurns are a chat's completed turns, in order: a user message followed
// by an answer that neither failed nor was stopped.
func chatTurns(msgs []chat.Message) []learnTurn {
	var out []learnTurn
	for i := 0; i+1 < len(msgs); i++ {
		u, r := msgs[i], msgs[i+1]
		if u.Role == chat.RoleUser && r.Role == chat.RoleAssistant && r.Err == "" && !r.Stopped && r.Text != "" {
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
