package ui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"engram/agent"
)

// handOvers collects the functions a UI hands to its do (fyne.Do) from
// other goroutines, for the test's goroutine to run as the UI goroutine.
type handOvers struct {
	mu sync.Mutex
	fs []func()
}

func (h *handOvers) do(f func()) {
	h.mu.Lock()
	h.fs = append(h.fs, f)
	h.mu.Unlock()
}

// run runs what was handed over and returns how many functions it was.
func (h *handOvers) run() int {
	h.mu.Lock()
	fs := h.fs
	h.fs = nil
	h.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return len(fs)
}

// TestPumpMergesDeltasAndKeepsOrder streams bursts of deltas in fake time:
// a burst waits for the frame timer and is then handed over once, merged;
// chats keep their order; a TurnDone flushes the deltas before it at once.
func TestPumpMergesDeltasAndKeepsOrder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		text := map[string]*strings.Builder{"c": {}, "d": {}}
		var applied []string // the chat of each delta applied, "done chat: text" for TurnDone
		apply := func(ev agent.Event) {
			switch e := ev.(type) {
			case agent.Delta:
				text[e.ChatID].WriteString(e.Text)
				applied = append(applied, e.ChatID)
			case agent.TurnDone:
				applied = append(applied, "done "+e.ChatID+": "+text[e.ChatID].String())
			}
		}
		events := make(chan agent.Event, 1000)
		var ui handOvers
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			pump(context.Background(), events, ui.do, apply)
		}()
		burst := func(chat string, n int) string {
			var b strings.Builder
			for k := range n {
				s := chat + strconv.Itoa(k) + " "
				b.WriteString(s)
				events <- agent.Delta{ChatID: chat, Text: s}
			}
			return b.String()
		}
		// waitFrame lets d of fake time pass and runs what was handed over.
		waitFrame := func(d time.Duration) int {
			time.Sleep(d)
			synctest.Wait()
			return ui.run()
		}

		want := burst("c", 300)
		if n := waitFrame(frame - time.Millisecond); n != 0 {
			t.Fatalf("%d hand-overs before a frame passed", n)
		}
		if n := waitFrame(time.Millisecond); n != 1 || text["c"].String() != want || len(applied) != 1 {
			t.Fatalf("after a frame: %d hand-overs applying %d deltas, %d bytes of %d; want 1 merged",
				n, len(applied), text["c"].Len(), len(want))
		}

		wantD := burst("d", 100)
		want += burst("c", 100)
		if n := waitFrame(frame); n != 1 || !slices.Equal(applied[1:], []string{"d", "c"}) {
			t.Fatalf("the second burst: %d hand-overs applying %q, want 1 applying d then c", n, applied[1:])
		}
		if text["c"].String() != want || text["d"].String() != wantD {
			t.Fatal("the second burst lost text")
		}

		events <- agent.Delta{ChatID: "c", Text: "the end"}
		events <- agent.TurnDone{ChatID: "c"}
		if n := waitFrame(0); n != 2 {
			t.Fatalf("a TurnDone after a delta: %d hand-overs without waiting, want the delta's and its own", n)
		}
		if last := applied[len(applied)-1]; last != "done c: "+want+"the end" {
			t.Fatalf("the last event applied is %.60q…, want TurnDone after all of chat c's text", last)
		}
		if n := waitFrame(time.Second); n != 0 {
			t.Fatalf("%d hand-overs with nothing pending: the frame timer was left running", n)
		}

		close(events)
		synctest.Wait()
		select {
		case <-stopped:
		default:
			t.Fatal("the pump did not stop when its events closed")
		}
	})
}

// TestPumpFlushesOnCancel ends the pump's context with deltas pending: they
// are handed over, not lost.
func TestPumpFlushesOnCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var got strings.Builder
		apply := func(ev agent.Event) { got.WriteString(ev.(agent.Delta).Text) }
		events := make(chan agent.Event, 10)
		ctx, cancel := context.WithCancel(context.Background())
		var ui handOvers
		done := make(chan struct{})
		go func() {
			defer close(done)
			pump(ctx, events, ui.do, apply)
		}()
		events <- agent.Delta{ChatID: "c", Text: "last "}
		events <- agent.Delta{ChatID: "c", Text: "words"}
		synctest.Wait()
		cancel()
		<-done
		if ui.run(); got.String() != "last words" {
			t.Fatalf("after cancel the UI got %q", got.String())
		}
	})
}

// TestDebounceRunsOnceCallsPause calls debounce faster than its wait, in
// fake time: the function runs once, a wait after the last call, on the UI
// goroutine; stop cancels a pending call; the background work count (what
// Close and settle wait for) is back to zero after each.
func TestDebounceRunsOnceCallsPause(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var ui handOvers
		u := &UI{do: ui.do, ctx: context.Background()}
		var d debouncer
		runs := 0
		const wait = 100 * time.Millisecond
		for range 5 {
			u.debounce(&d, wait, func() { runs++ })
			time.Sleep(wait * 6 / 10)
			synctest.Wait()
			ui.run()
		}
		if runs != 0 {
			t.Fatalf("ran %d times while the calls came faster than the wait", runs)
		}
		time.Sleep(wait * 4 / 10)
		synctest.Wait()
		if ui.run(); runs != 1 {
			t.Fatalf("ran %d times a wait after the last call, want 1", runs)
		}
		u.work.Wait()

		u.debounce(&d, wait, func() { runs++ })
		d.stop(u)
		time.Sleep(2 * wait)
		synctest.Wait()
		if ui.run(); runs != 1 {
			t.Fatalf("a stopped call ran (%d runs)", runs)
		}
		u.work.Wait()
	})
}

// TestLaterSkipsAClosedWindow runs later's function after its delay, in
// fake time, and not at all once the window closed.
func TestLaterSkipsAClosedWindow(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var ui handOvers
		u := &UI{do: ui.do}
		u.ctx, u.cancel = context.WithCancel(context.Background())
		const delay = 1500 * time.Millisecond // the Copy button's
		ran := 0
		u.later(delay, func() { ran++ })
		time.Sleep(delay - time.Millisecond)
		synctest.Wait()
		if ui.run(); ran != 0 {
			t.Fatal("later ran before its delay")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if ui.run(); ran != 1 {
			t.Fatalf("later ran %d times after its delay, want 1", ran)
		}
		u.later(delay, func() { ran++ })
		u.cancel()
		time.Sleep(delay)
		synctest.Wait()
		if ui.run(); ran != 1 {
			t.Fatal("later ran in a closed window")
		}
	})
}
