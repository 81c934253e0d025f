package ui

import (
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"engram/agent"
)

// fakeProgress is the progress of semantic recall's indexing a test sets,
// counting the reads.
type fakeProgress struct {
	mu                 sync.Mutex
	done, total, reads int
}

func (p *fakeProgress) set(done, total int) {
	p.mu.Lock()
	p.done, p.total = done, total
	p.mu.Unlock()
}

func (p *fakeProgress) read() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads
}

// progressStore is a store whose indexing is at p.
type progressStore struct {
	MemoryStore
	p *fakeProgress
}

func (s progressStore) SemanticProgress() (done, total int) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	s.p.reads++
	return s.p.done, s.p.total
}

// progressBackend hands the window stores whose indexing is at p.
type progressBackend struct {
	*fakeBackend
	p *fakeProgress
}

func (b progressBackend) Memory(scope agent.Scope, dir string) (MemoryStore, error) {
	st, err := b.fakeBackend.Memory(scope, dir)
	if err != nil {
		return nil, err
	}
	return progressStore{st, b.p}, nil
}

// TestInspectorShowsIndexing: after a recall starts a store's vectors, the
// inspector shows how many memories are indexed, follows the count, hides
// the line when all are, and stops reading the progress.
func TestInspectorShowsIndexing(t *testing.T) {
	test.NewTempApp(t)
	fb := newFakeBackend(t)
	fb.script = func(id, text string) []agent.Event {
		return []agent.Event{agent.TurnStarted{ChatID: id, Text: text}, agent.RecallDone{ChatID: id},
			agent.Delta{ChatID: id, Text: "Hello."}, agent.TurnDone{ChatID: id}}
	}
	p := &fakeProgress{}
	h := startHarness(t, progressBackend{fb, p})
	line := h.u.insp.indexing
	if line.label.Visible() || line.polling {
		t.Fatalf("the line shows (%v) or reads on (%v) with nothing to index", line.label.Visible(), line.polling)
	}
	line.every = 5 * time.Millisecond

	p.set(1240, 3000)
	h.send("hello")
	shows := func(want string) func() bool {
		return func() bool {
			return line.label.Visible() && strings.Contains(shownText(h.u.insp.root), want)
		}
	}
	h.waitFor("the indexing line", shows("Indexing 1,240 of 3,000 memories for semantic recall"))
	p.set(2999, 3000)
	h.waitFor("the count to advance", shows("Indexing 2,999 of 3,000 memories"))
	p.set(3000, 3000)
	h.waitFor("the line to hide", func() bool { return !line.label.Visible() })
	if line.polling {
		t.Error("still reading the progress when the indexing is done")
	}
	reads := p.read()
	time.Sleep(50 * time.Millisecond)
	h.settle()
	if n := p.read(); n != reads {
		t.Errorf("the progress was read %d more times after the indexing was done", n-reads)
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1240: "1,240", 3000: "3,000",
		123456: "123,456", 1234567: "1,234,567", -1240: "-1,240"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestIndexingFollowsANewModel: a new model of semantic recall, whose
// vectors the stores compute again, shows the line without a recall.
func TestIndexingFollowsANewModel(t *testing.T) {
	test.NewTempApp(t)
	p := &fakeProgress{}
	h := startHarness(t, progressBackend{newFakeBackend(t), p})
	line := h.u.insp.indexing
	line.every = 5 * time.Millisecond
	p.set(0, 3000)
	h.u.applyEvent(agent.SemanticChanged{Model: "embed-a"})
	h.waitFor("the indexing line", func() bool {
		return line.label.Visible() && strings.Contains(shownText(h.u.insp.root), "Indexing 0 of 3,000 memories")
	})
	p.set(3000, 3000)
	h.waitFor("the line to hide", func() bool { return !line.label.Visible() && !line.polling })
}
