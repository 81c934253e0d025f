package ui

import (
	"context"
	"time"

	"engram/agent"
)

// frame is the shortest time between two redraws of a streaming answer.
const frame = 33 * time.Millisecond

// pump hands the agent's events to apply on the UI goroutine (through do)
// until events closes or ctx ends. Deltas are merged and flushed at most
// once per frame; any other event first flushes the deltas before it, so
// order is kept and no text is lost.
func pump(ctx context.Context, events <-chan agent.Event, do func(func()), apply func(agent.Event)) {
	var pending []agent.Delta
	var timer *time.Timer
	var tick <-chan time.Time
	flush := func() {
		if timer != nil {
			timer.Stop()
			timer, tick = nil, nil
		}
		if len(pending) == 0 {
			return
		}
		ds := pending
		pending = nil
		do(func() {
			for _, d := range ds {
				apply(d)
			}
		})
	}
	for {
		select {
		case <-ctx.Done():
			flush()
			return
		case ev, ok := <-events:
			if !ok {
				flush()
				return
			}
			if d, isDelta := ev.(agent.Delta); isDelta {
				if n := len(pending); n > 0 && pending[n-1].ChatID == d.ChatID {
					pending[n-1].Text += d.Text
				} else {
					pending = append(pending, d)
				}
				if timer == nil {
					timer = time.NewTimer(frame)
					tick = timer.C
				}
				continue
			}
			flush()
			do(func() { apply(ev) })
		case <-tick:
			timer, tick = nil, nil
			flush()
		}
	}
}
