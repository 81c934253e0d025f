package agent

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

// fillQueue queues what fills the Events channel's buffer and the pump's
// hand, and waits until the pump is stuck on the full channel: later events
// stay queued until someone reads.
func fillQueue(q *eventQueue) {
	for i := 0; i <= eventBuffer; i++ {
		q.emit(Notice{Text: fmt.Sprint(i)})
	}
	synctest.Wait()
}

// TestEventQueueMergesDeltasKeepsOthers: while nobody reads, the deltas of
// a chat that follow each other merge into one; every other event stays,
// in order.
func TestEventQueueMergesDeltasKeepsOthers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		q := newEventQueue()
		defer q.close()
		fillQueue(q)
		var first, second strings.Builder
		for i := 0; i < 1000; i++ {
			s := fmt.Sprintf("%d,", i)
			if i <= 500 {
				first.WriteString(s)
			} else {
				second.WriteString(s)
			}
			q.emit(Delta{ChatID: "a", Text: s})
			if i == 500 {
				q.emit(ToolCall{ChatID: "a", CallID: "x"})
			}
		}
		q.emit(ReasoningDelta{ChatID: "a", Text: "hm"})
		q.emit(ReasoningDelta{ChatID: "a", Text: "m"})
		q.emit(Delta{ChatID: "b", Text: "other chat"})
		q.emit(Delta{ChatID: "b", Text: "!"})
		q.emit(TurnDone{ChatID: "a"})

		for i := 0; i <= eventBuffer; i++ {
			if n, ok := (<-q.out).(Notice); !ok || n.Text != fmt.Sprint(i) {
				t.Fatalf("event %d = %#v, want notice %d", i, n, i)
			}
		}
		want := []Event{Delta{ChatID: "a", Text: first.String()}, ToolCall{ChatID: "a", CallID: "x"},
			Delta{ChatID: "a", Text: second.String()}, ReasoningDelta{ChatID: "a", Text: "hmm"},
			Delta{ChatID: "b", Text: "other chat!"}, TurnDone{ChatID: "a"}}
		for i, w := range want {
			if e := <-q.out; fmt.Sprintf("%#v", e) != fmt.Sprintf("%#v", w) {
				t.Errorf("event %d after the notices = %.80v, want %.80v", i, e, w)
			}
		}
		synctest.Wait()
		if n := len(q.out); n != 0 {
			t.Errorf("%d events more than emitted", n)
		}
	})
}

// TestEventQueueDeliversWhileEmitting: a reader gets each event as soon
// as it is queued; the queue holds nothing back.
func TestEventQueueDeliversWhileEmitting(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		q := newEventQueue()
		defer q.close()
		for i := 0; i < 3; i++ {
			q.emit(Delta{ChatID: "a", Text: fmt.Sprint(i)})
			synctest.Wait()
			if n := len(q.out); n != i+1 {
				t.Fatalf("after delta %d the channel holds %d events, want %d (not merged: it was sent)", i, n, i+1)
			}
		}
	})
}

// TestEventQueueCloseWithoutReader: close does not wait for a reader; the
// channel keeps the first events that fit its buffer, in order, and then
// is closed; emit after close does nothing.
func TestEventQueueCloseWithoutReader(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		q := newEventQueue()
		fillQueue(q)
		for i := eventBuffer + 1; i < 2*eventBuffer; i++ {
			q.emit(Notice{Text: fmt.Sprint(i)})
		}
		q.close() // must not block
		q.emit(Notice{Text: "after close"})
		n := 0
		for e := range q.out {
			if n2, _ := e.(Notice); n2.Text != fmt.Sprint(n) {
				t.Fatalf("event %d is %v", n, e)
			}
			n++
		}
		if n != eventBuffer {
			t.Errorf("%d events after close, want %d", n, eventBuffer)
		}
	})
}
