package ui

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2/test"
)

// slowFirstWrite returns a write hook under which the first write waits
// until the second has been made, and then fails if fail is set; the others
// are made at once. Writes made one after the other cannot make the second
// first, so then the first gives up waiting after 300 ms.
func slowFirstWrite(fail bool) func(apply func() error) error {
	var mu sync.Mutex
	n := 0
	second := make(chan struct{})
	return func(apply func() error) error {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k > 1 {
			err := apply()
			if k == 2 {
				close(second)
			}
			return err
		}
		select {
		case <-second:
		case <-time.After(300 * time.Millisecond):
		}
		if fail {
			return errors.New("disk full")
		}
		return apply()
	}
}

// TestQuickTogglesLandInOrder switches auto-recall off and on again while
// the first write is slow: the last change is the one saved.
func TestQuickTogglesLandInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		h.fb.writeHook = slowFirstWrite(false)
		rec := h.u.bar.recall
		test.Tap(rec)
		test.Tap(rec)
		h.settle()
		c, _ := h.fb.Chat(h.u.current)
		if !c.AutoRecall || !rec.Checked {
			t.Fatalf("after off and on: saved %v, shown %v, want both on", c.AutoRecall, rec.Checked)
		}
	})
}

// TestFailedSaveKeepsLaterSettings saves the settings twice; the first save
// fails after the second was asked for: undoing it must not undo the second.
func TestFailedSaveKeepsLaterSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		h.fb.writeHook = slowFirstWrite(true)
		c := h.u.cfg
		c.RecallTopK = 8
		h.u.saveConfig(c)
		c.RecallTopK = 9
		h.u.saveConfig(c)
		h.settle()
		if got := h.fb.Config().RecallTopK; got != 9 {
			t.Fatalf("saved top-k %d, want 9", got)
		}
		if h.u.cfg.RecallTopK != 9 {
			t.Fatalf("the window uses top-k %d, want the saved 9", h.u.cfg.RecallTopK)
		}
		if h.w.Canvas().Overlays().Top() == nil {
			t.Error("the failed save was not reported")
		}
	})
}

// TestFailedTogglesRollBackToSaved fails two quick auto-recall switches:
// the window goes back to what is saved, not to the value before the last
// switch.
func TestFailedTogglesRollBackToSaved(t *testing.T) {
	h := newHarness(t, nil)
	h.fb.writeHook = func(func() error) error { return errors.New("disk full") }
	rec := h.u.bar.recall
	test.Tap(rec)
	test.Tap(rec)
	h.settle()
	c, _ := h.fb.Chat(h.u.current)
	if !c.AutoRecall || rec.Checked != c.AutoRecall || h.u.currentSession().info.AutoRecall != c.AutoRecall {
		t.Fatalf("saved %v, shown %v, known %v: want all on", c.AutoRecall, rec.Checked,
			h.u.currentSession().info.AutoRecall)
	}
}

// TestRollbackKeepsRename fails a slow auto-recall switch while the chat is
// renamed: neither the undo nor the rename puts back the other's old value.
func TestRollbackKeepsRename(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		h.fb.writeHook = slowFirstWrite(true)
		test.Tap(h.u.bar.recall)
		h.u.list.rename(h.u.chats[0])
		objects[*shortcutEntry](h.w.Canvas().Overlays().Top())[0].SetText("Deploy fix")
		overlayButton(t, h, "Rename")
		h.settle()
		c, _ := h.fb.Chat(h.u.current)
		info := h.u.currentSession().info
		if c.Title != "Deploy fix" || info.Title != "Deploy fix" || chatTitle(h.u.chats[0]) != "Deploy fix" {
			t.Errorf("title saved %q, known %q, listed %q: want Deploy fix", c.Title, info.Title, chatTitle(h.u.chats[0]))
		}
		if !c.AutoRecall || !info.AutoRecall || !h.u.bar.recall.Checked {
			t.Errorf("auto-recall saved %v, known %v, shown %v: want the failed switch undone",
				c.AutoRecall, info.AutoRecall, h.u.bar.recall.Checked)
		}
	})
}

// TestWorkerRunsInOrder queues jobs from two goroutines in turn: each runs
// after the one queued before it, and close runs those still queued.
func TestWorkerRunsInOrder(t *testing.T) {
	t.Parallel() // shares nothing: no app, no globals
	w := newWorker()
	gate := make(chan struct{})
	var ran []int // only the worker's goroutine appends, and close waits for it
	w.add(func() { <-gate })
	for k := range 100 {
		w.add(func() { ran = append(ran, k) })
	}
	close(gate)
	w.close()
	if len(ran) != 100 {
		t.Fatalf("%d of 100 queued jobs ran before close returned", len(ran))
	}
	for k, v := range ran {
		if v != k {
			t.Fatalf("job %d ran in place %d", v, k)
		}
	}
	if w.add(func() { t.Error("a job queued after close ran") }) {
		t.Error("add after close reported the job queued")
	}
}

// TestCloseMakesQueuedChanges closes the window while a save waits behind
// a slow one: both are made, the last one last, and nothing is handed back
// to the closed window.
func TestCloseMakesQueuedChanges(t *testing.T) {
	h := newHarness(t, nil)
	gate := make(chan struct{})
	h.fb.writeHook = func(apply func() error) error {
		<-gate
		return apply()
	}
	c := h.u.cfg
	c.RecallTopK = 7
	h.u.saveConfig(c)
	c.RecallTopK = 8
	h.u.saveConfig(c)
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		h.u.Close()
	}()
	<-h.u.ctx.Done()
	close(gate)
	<-closed
	if got := h.fb.Config().RecallTopK; got != 8 {
		t.Fatalf("saved top-k %d after close, want 8", got)
	}
	h.runQueued()
	if h.u.cfgSave.ended != 0 {
		t.Fatalf("%d saves were handed back to the closed window", h.u.cfgSave.ended)
	}
}
