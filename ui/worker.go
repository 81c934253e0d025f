package ui

import "sync"

// worker runs jobs one at a time on its own goroutine, in the order they
// were queued. Queuing never blocks, so the UI goroutine can queue from a
// widget callback.
type worker struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  []func()
	closed bool
	done   chan struct{}
}

// newWorker starts a worker; close stops it.
func newWorker() *worker {
	w := &worker{done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.run()
	return w
}

// add queues job after the jobs queued before it. After close the job is
// not run, and add reports false.
func (w *worker) add(job func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.queue = append(w.queue, job)
	w.cond.Signal()
	return true
}

// close runs the jobs already queued, then stops the worker and returns.
func (w *worker) close() {
	w.mu.Lock()
	w.closed = true
	w.cond.Signal()
	w.mu.Unlock()
	<-w.done
}

func (w *worker) run() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closed {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		job := w.queue[0]
		w.queue[0] = nil
		w.queue = w.queue[1:]
		w.mu.Unlock()
		job()
	}
}

// pendingSave follows a value that the window shows as soon as it is
// changed and saves in the background, one save after the other: a failed
// save is undone only if no later change was made (the later one wins), and
// then back to the value last saved, not to the one before the change.
type pendingSave[T any] struct {
	queued, ended int // the saves asked for and ended
	saved         T   // the value last saved, while saves are queued
}

// start records a save asked for; cur is what the window showed before
// the change.
func (p *pendingSave[T]) start(cur T) {
	if p.queued == p.ended {
		p.saved = cur
	}
	p.queued++
}

// end records the end of the save of v, which failed if err is not nil.
// When the window should undo it, end returns the value to show and true.
func (p *pendingSave[T]) end(v T, err error) (T, bool) {
	p.ended++
	if err == nil {
		p.saved = v
		return v, false
	}
	return p.saved, p.ended == p.queued
}
