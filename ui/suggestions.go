package ui

import (
	"context"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/memory"
)

// Reviewer is what the review panel needs of the agent: the memories held
// for the person (capture "ask first"), the forgets proposed for memories
// the person wrote, undo of forgets, and learning from past chats.
// *agent.Agent satisfies it. Its methods do disk or network work, so the
// panel calls them off the UI goroutine.
type Reviewer interface {
	Suggestions() []agent.Suggestion
	KeepSuggestion(id, text string) (memory.Entry, error)
	DiscardSuggestion(id string) error
	Proposals() []agent.Forgotten
	AcceptForget(f agent.Forgotten) error
	DismissForget(f agent.Forgotten) error
	UndoForget(f agent.Forgotten) error
	Learn(ctx context.Context, o agent.LearnOptions) (agent.LearnTotals, error)
}

// reviewPanel shows, above the inspector's editor, what needs the person:
// suggested memories (Keep / Edit / Discard), proposed forgets (Forget /
// Keep), memories just forgotten (Undo), updates of memories the person
// wrote (a notice), and a "Learn from past chats" action with its progress.
// All its methods run on the UI goroutine.
type reviewPanel struct {
	r     Reviewer
	write func(work func() func()) // runs work off the UI goroutine, then its result on it
	do    func(func())             // runs a function on the UI goroutine (from another)
	win   fyne.Window

	sugg      []agent.Suggestion
	proposals []agent.Forgotten
	forgotten []agent.Forgotten // undo-able, newest last
	editing   string            // the suggestion being edited
	edit      *widget.Entry
	learning  context.CancelFunc

	items     *fyne.Container
	status    *widget.Label
	statusBox *fyne.Container // the status and its close button
	closeB    *tipButton      // closes the status, once learning is done
	tipText   *canvas.Text
	tipBox    *fyne.Container
	learnBtn  *widget.Button
	root      *fyne.Container
	// resized lays out again what holds the panel, after its rows or
	// status changed (the inspector's column scrolls the panel within a
	// share of its height, so the panel's size does not reach it alone).
	resized func()
}

// reviewKeep is how many undo-able forgets the panel keeps.
const reviewKeep = 5

func newReviewPanel(r Reviewer, write func(work func() func()), do func(func()), win fyne.Window) *reviewPanel {
	p := &reviewPanel{r: r, write: write, do: do, win: win}
	p.items = container.NewVBox()
	p.status = widget.NewLabel("")
	p.status.Wrapping = fyne.TextWrapWord
	p.tipText = newTipText()
	p.tipBox = container.NewCenter(p.tipText)
	p.tipBox.Hide()
	p.closeB = newTipButton(lang.L("Close"), theme.CancelIcon(), p.closeStatus, p.showTip)
	p.statusBox = container.NewBorder(nil, nil, nil, container.NewVBox(container.NewHBox(p.tipBox, p.closeB)), p.status)
	p.statusBox.Hide()
	p.learnBtn = widget.NewButtonWithIcon(lang.L("Learn from past chats"), theme.HistoryIcon(), p.toggleLearn)
	p.learnBtn.Importance = widget.LowImportance
	p.root = container.NewVBox(p.items, p.statusBox, p.learnBtn)
	return p
}

// refresh reloads the suggestions and proposals.
func (p *reviewPanel) refresh() {
	p.write(func() func() {
		sugg, props := p.r.Suggestions(), p.r.Proposals()
		return func() {
			p.sugg, p.proposals = sugg, props
			p.rebuild()
		}
	})
}

// applyEvent shows an agent event that concerns the panel.
func (p *reviewPanel) applyEvent(ev agent.Event) {
	switch e := ev.(type) {
	case agent.SuggestionsChanged:
		p.refresh()
	case agent.MemoriesRevised:
		p.forgotten = append(p.forgotten, e.Forgotten...)
		if n := len(p.forgotten); n > reviewKeep {
			p.forgotten = p.forgotten[n-reviewKeep:]
		}
		if len(e.Proposed) > 0 {
			p.refresh()
			return
		}
		p.rebuild()
	}
}

// rebuild lays out the rows.
func (p *reviewPanel) rebuild() {
	var rows []fyne.CanvasObject
	if len(p.sugg) > 0 {
		rows = append(rows, widget.NewLabelWithStyle(count("{{.Count}} suggested memory", len(p.sugg)),
			fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	for _, s := range p.sugg {
		rows = append(rows, p.suggestionRow(s))
	}
	for _, f := range p.proposals {
		rows = append(rows, p.row(lang.L("Forget this memory? {{.Text}}", map[string]any{"Text": oneLine(f.Entry.Text, 160)}), reasonOf(f.Reason),
			p.button(lang.L("Forget"), theme.DeleteIcon(), func() { p.decide(f, true) }),
			p.button(lang.L("Keep"), theme.ConfirmIcon(), func() { p.decide(f, false) })))
	}
	for _, f := range slices.Backward(p.forgotten) {
		rows = append(rows, p.row(lang.L("Forgot: {{.Text}}", map[string]any{"Text": oneLine(f.Entry.Text, 160)}), reasonOf(f.Reason),
			p.button(lang.L("Undo"), theme.ContentUndoIcon(), func() { p.undo(f) })))
	}
	p.items.Objects = rows
	p.items.Refresh()
	p.relayout()
}

// relayout lays out again what holds the panel.
func (p *reviewPanel) relayout() {
	if p.resized != nil {
		p.resized()
	}
}

func reasonOf(r string) string {
	if r == "" {
		return ""
	}
	return lang.L("why: {{.Reason}}", map[string]any{"Reason": r})
}

func (p *reviewPanel) button(label string, icon fyne.Resource, tap func()) *widget.Button {
	b := widget.NewButtonWithIcon(label, icon, tap)
	b.Importance = widget.LowImportance
	return b
}

// row is a text, a caption and buttons under them.
func (p *reviewPanel) row(text, meta string, buttons ...fyne.CanvasObject) fyne.CanvasObject {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	parts := []fyne.CanvasObject{l}
	if meta != "" {
		parts = append(parts, captionLabel(meta))
	}
	parts = append(parts, container.NewHBox(buttons...))
	return container.NewVBox(parts...)
}

func (p *reviewPanel) suggestionRow(s agent.Suggestion) fyne.CanvasObject {
	meta := kindName(s.Kind) + " · " + scopeName(s.Scope)
	if s.Replaces != "" {
		meta += " · " + lang.L("replaces {{.ID}}", map[string]any{"ID": s.Replaces})
	}
	if p.editing == s.ID {
		return container.NewVBox(p.edit, captionLabel(meta), container.NewHBox(
			p.button(lang.L("Keep"), theme.ConfirmIcon(), func() { p.keep(s, p.edit.Text) }),
			p.button(lang.L("Cancel"), theme.CancelIcon(), func() { p.editing = ""; p.rebuild() })))
	}
	keep, discard := lang.L("Keep"), lang.L("Discard")
	if s.Replaces != "" { // a new text for a memory the person wrote
		keep, discard = lang.L("Use the new one"), lang.L("Keep mine")
	}
	return p.row(s.Text, meta,
		p.button(keep, theme.ConfirmIcon(), func() { p.keep(s, "") }),
		p.button(lang.L("Edit"), theme.DocumentCreateIcon(), func() {
			p.editing = s.ID
			p.edit = widget.NewMultiLineEntry()
			p.edit.Wrapping = fyne.TextWrapWord
			p.edit.SetText(s.Text)
			p.rebuild()
		}),
		p.button(discard, theme.DeleteIcon(), func() { p.discard(s) }))
}

// keep stores a suggestion (edited to text, if not empty). A text that
// looks like a secret is kept only once the person confirms.
func (p *reviewPanel) keep(s agent.Suggestion, text string) {
	if what, ok := memory.Secret(text); ok && text != "" {
		confirmSecret(p.win, what, func() { p.doKeep(s, text) })
		return
	}
	p.doKeep(s, text)
}

func (p *reviewPanel) doKeep(s agent.Suggestion, text string) {
	p.write(func() func() {
		_, err := p.r.KeepSuggestion(s.ID, text)
		return func() {
			if err != nil {
				p.show(lang.L("Could not keep the memory: {{.Err}}", map[string]any{"Err": err}))
			}
			p.editing = ""
			p.refresh()
		}
	})
}

func (p *reviewPanel) discard(s agent.Suggestion) {
	p.write(func() func() {
		err := p.r.DiscardSuggestion(s.ID)
		return func() {
			if err != nil {
				p.show(lang.L("Could not discard the suggestion: {{.Err}}", map[string]any{"Err": err}))
			}
			p.refresh()
		}
	})
}

// decide carries out (forget) or dismisses a forget proposal; a carried
// out one can be undone.
func (p *reviewPanel) decide(f agent.Forgotten, forget bool) {
	p.write(func() func() {
		var err error
		if forget {
			err = p.r.AcceptForget(f)
		} else {
			err = p.r.DismissForget(f)
		}
		return func() {
			if err != nil {
				p.show(lang.L("Could not change the memory: {{.Err}}", map[string]any{"Err": err}))
			} else if forget {
				p.forgotten = append(p.forgotten, f)
			}
			p.refresh()
		}
	})
}

func (p *reviewPanel) undo(f agent.Forgotten) {
	p.write(func() func() {
		err := p.r.UndoForget(f)
		return func() {
			if err != nil {
				p.show(lang.L("Could not bring the memory back: {{.Err}}", map[string]any{"Err": err}))
				return
			}
			p.forgotten = slices.DeleteFunc(p.forgotten, func(o agent.Forgotten) bool {
				return o.Scope == f.Scope && o.Dir == f.Dir && o.Entry.ID == f.Entry.ID
			})
			p.rebuild()
		}
	})
}

// show puts a line in the status label, in place of the one there: a
// learning run's progress replaces the last run's summary. The line can be
// closed, but for the progress of a run going on.
func (p *reviewPanel) show(text string) {
	p.status.SetText(text)
	setVisible(p.closeB, p.learning == nil)
	if p.learning != nil {
		p.showTip("")
	}
	p.statusBox.Show()
	p.relayout()
}

// closeStatus hides the status line until the next one.
func (p *reviewPanel) closeStatus() {
	p.showTip("")
	p.statusBox.Hide()
	p.relayout()
}

// showTip shows tip beside the status's close button ("" hides it).
func (p *reviewPanel) showTip(tip string) {
	if p.tipText.Text == tip {
		return
	}
	p.tipText.Text = tip
	p.tipText.Refresh()
	p.tipBox.Hidden = tip == ""
	p.statusBox.Refresh()
}

// toggleLearn starts learning from every past chat, or stops a run; the
// progress shows in the status label.
func (p *reviewPanel) toggleLearn() {
	if p.learning != nil {
		p.learning()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.learning = cancel
	p.learnBtn.SetText(lang.L("Stop learning"))
	p.show(lang.L("Learning from past chats…"))
	go func() {
		tot, err := p.r.Learn(ctx, agent.LearnOptions{Delay: learnDelay, OnProgress: func(lp agent.LearnProgress) {
			text := lang.L("Learning from past chats: chat {{.Chat}} of {{.Chats}} · {{.Saved}} saved, {{.Updated}} updated, {{.Forgotten}} forgotten",
				map[string]any{"Chat": min(lp.Chat+1, lp.Chats), "Chats": lp.Chats, "Saved": lp.Totals.Saved,
					"Updated": lp.Totals.Updated, "Forgotten": lp.Totals.Forgotten})
			p.do(func() { p.show(text) })
		}})
		p.do(func() {
			cancel()
			p.learning = nil
			p.learnBtn.SetText(lang.L("Learn from past chats"))
			switch {
			case err != nil && ctx.Err() != nil:
				p.show(lang.L("Learning stopped; it goes on from there next time."))
			case err != nil:
				p.show(lang.L("Learning stopped: {{.Err}}. It goes on from there next time.", map[string]any{"Err": err}))
			default:
				p.show(count("Learned from {{.Count}} turn: {{.Saved}} saved, {{.Updated}} updated, {{.Forgotten}} forgotten, {{.Suggested}} suggested.",
					tot.Turns, map[string]any{"Saved": tot.Saved, "Updated": tot.Updated, "Forgotten": tot.Forgotten,
						"Suggested": tot.Suggested}))
			}
			p.refresh()
		})
	}()
}

// learnDelay throttles the inspector's learning run.
const learnDelay = time.Second

// confirmSecret asks the person before keeping a text that looks like a
// secret (what it looks like, never the text itself).
func confirmSecret(win fyne.Window, what string, keep func()) {
	if win == nil {
		return
	}
	dialog.ShowConfirm(lang.L("This looks like a secret"),
		lang.L("The text looks like {{.What}}. Memories are stored in plain text, may be synced and are sent to the model. Keep it anyway?",
			map[string]any{"What": strings.TrimSpace(what)}),
		func(ok bool) {
			if ok {
				keep()
			}
		}, win)
}
