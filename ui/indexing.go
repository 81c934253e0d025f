package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"engram/memory"
)

// indexingPoll is how often the inspector reads the progress of semantic
// recall's indexing while it goes on.
const indexingPoll = time.Second

// semanticProgresser is a store that computes its vectors for semantic
// recall in the background and says how far it is (*memory.Store, see
// memory.Store.SemanticProgress).
type semanticProgresser interface {
	SemanticProgress() (done, total int)
}

var _ semanticProgresser = (*memory.Store)(nil)

// indexingLine is the inspector's line "Indexing 1,240 of 3,000 memories
// for semantic recall", shown while the vectors of the store it shows are
// computed in the background. Once watch is called it reads the store's
// progress (a count, off the UI goroutine) every indexingPoll until the
// indexing is done, then hides and stops reading until the next watch.
// It shows only from the second read on, so a memory or two embedded in a
// moment never flash a line. Its methods run on the UI goroutine.
type indexingLine struct {
	u        *UI
	store    func() MemoryStore // the store the inspector shows (nil: none)
	relayout func()
	every    time.Duration
	label    *caption
	root     fyne.CanvasObject

	polling bool // a read is under way or scheduled
	reads   int  // the reads of the store shown since the indexing began
}

func newIndexingLine(u *UI, store func() MemoryStore, relayout func()) *indexingLine {
	l := &indexingLine{u: u, store: store, relayout: relayout, every: indexingPoll, label: captionLabel("")}
	l.label.Hide()
	l.root = l.label
	return l
}

// watch starts reading the progress of the store shown, unless it is read
// already: after the inspector opened or reloaded a store, a recall (which
// builds a store's index, whose vectors then start) or a change of
// semantic recall's model (agent.SemanticChanged).
func (l *indexingLine) watch() {
	if !l.polling {
		l.poll()
	}
}

// poll reads the progress of the store shown and shows it, then reads it
// again after l.every until the indexing is done.
func (l *indexingLine) poll() {
	p, _ := l.store().(semanticProgresser)
	if p == nil {
		l.polling = false
		l.show(0, 0)
		return
	}
	l.polling = true
	l.u.bg(func() func() {
		done, total := p.SemanticProgress()
		return func() {
			if q, _ := l.store().(semanticProgresser); q != p {
				l.reads = 0
				l.show(0, 0)
				l.poll() // the inspector shows another store now
				return
			}
			if done >= total {
				l.polling, l.reads = false, 0
				l.show(0, 0)
				return
			}
			l.reads++
			if l.reads > 1 {
				l.show(done, total)
			}
			l.u.later(l.every, l.poll)
		}
	})
}

// show shows done of total, or hides the line when done >= total.
func (l *indexingLine) show(done, total int) {
	on := done < total
	if on {
		l.label.SetText(lang.L("Indexing {{.Done}} of {{.Total}} memories for semantic recall",
			map[string]any{"Done": grouped(done), "Total": grouped(total)}))
	}
	if on != l.label.Visible() {
		l.label.Hidden = !on
		l.relayout()
	}
}

// grouped writes n with a comma between groups of three digits: 3,000
// (in Chinese text too).
func grouped(n int) string { return numbers.Sprintf("%d", n) }

// numbers formats the numbers of the window's lines.
var numbers = message.NewPrinter(language.English)
