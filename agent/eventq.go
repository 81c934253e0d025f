package agent

import "sync"

// eventBuffer is the capacity of the Events channel.
const eventBuffer = 256

// eventQueue feeds the Events channel from an unbounded queue, so the turn
// goroutines never block on a slow consumer. A Delta that finds the previous
// queued event to be a Delta of the same chat is merged into it, and so is
// a ReasoningDelta; no other event is merged or dropped, and order is kept.
type eventQueue struct {
	out chan Event

	mu      sync.Mutex
	pending []Event
	wake    chan struct{} // has a value when pending may be non-empty
	closed  bool
	done    chan struct{} // closed by close()
	stopped chan struct{} // closed when the pump has exited
}

func newEventQueue() *eventQueue {
	q := &eventQueue{out: make(chan Event, eventBuffer), wake: make(chan struct{}, 1),
		done: make(chan struct{}), stopped: make(chan struct{})}
	go q.pump()
	return q
}

// emit queues an event. It never blocks; after close it does nothing.
func (q *eventQueue) emit(e Event) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	if n := len(q.pending); n == 0 || !merge(&q.pending[n-1], e) {
		q.pending = append(q.pending, e)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// merge merges e into the queued event *last when both are deltas of the
// same kind and chat, and reports whether it did.
func merge(last *Event, e Event) bool {
	switch d := e.(type) {
	case Delta:
		if l, ok := (*last).(Delta); ok && l.ChatID == d.ChatID {
			l.Text += d.Text
			*last = l
			return true
		}
	case ReasoningDelta:
		if l, ok := (*last).(ReasoningDelta); ok && l.ChatID == d.ChatID {
			l.Text += d.Text
			*last = l
			return true
		}
	}
	return false
}

func (q *eventQueue) pump() {
	defer close(q.stopped)
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.mu.Unlock()
			select {
			case <-q.wake:
				continue
			case <-q.done:
				return
			}
		}
		e := q.pending[0]
		q.pending[0] = nil
		q.pending = q.pending[1:]
		q.mu.Unlock()
		select {
		case q.out <- e:
		case <-q.done:
			return
		}
	}
}

// close stops the pump, moves what is still queued into the channel's
// buffer as far as it fits, and closes the channel.
func (q *eventQueue) close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.mu.Unlock()
	close(q.done)
	<-q.stopped
	q.mu.Lock()
	rest := q.pending
	q.pending = nil
	q.mu.Unlock()
	for _, e := range rest {
		select {
		case q.out <- e:
		default:
		}
	}
	close(q.out)
}
