package ui

import (
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// undoDeleteFor is how long "Message deleted · Undo" shows. The message
// leaves the chat file only after it, so Undo has nothing to write back.
const undoDeleteFor = 8 * time.Second

// deletion is a message taken out of the window whose removal from the
// chat waits for its Undo to pass.
type deletion struct {
	s    *session
	m    *msgState
	prev *msgState // the message before it (nil: it was the first)
}

// newUndoBar is the "Message deleted · Undo" bar above the message box,
// hidden.
func (p *chatPane) newUndoBar() *fyne.Container {
	label := widget.NewLabel(lang.L("Message deleted"))
	p.undoB = widget.NewButtonWithIcon(lang.L("Undo"), theme.ContentUndoIcon(), p.undoDelete)
	closeB := widget.NewButtonWithIcon("", theme.CancelIcon(), p.commitDelete)
	closeB.Importance = widget.LowImportance
	bar := container.NewBorder(nil, nil, nil, container.NewHBox(p.undoB, closeB), label)
	bar.Hide()
	return bar
}

// remove takes message m out of the window at once and offers Undo for a
// while; then (or once another change of the chats starts) it is deleted
// from the chat (commitDelete).
func (p *chatPane) remove(m *msgState) {
	s := p.s
	if s == nil || s.busy || !s.loaded {
		return
	}
	if m.local {
		p.dropLocal(m)
		return
	}
	i := slices.Index(s.msgs, m)
	if i < 0 {
		return
	}
	p.commitDelete()
	d := &deletion{s: s, m: m}
	if i > 0 {
		d.prev = s.msgs[i-1]
	}
	s.msgs = slices.Delete(slices.Clone(s.msgs), i, i+1)
	p.deleted = d
	p.sync()
	p.undoBar.Show()
	p.relayoutRoot()
	p.u.later(undoDeleteFor, func() {
		if p.deleted == d {
			p.commitDelete()
		}
	})
}

// undoDelete puts the message deleted last back where it was.
func (p *chatPane) undoDelete() {
	d := p.deleted
	if d == nil {
		return
	}
	p.deleted = nil
	p.hideUndo()
	if d.s.index(d.m.ID) >= 0 { // the chat was loaded again meanwhile
		return
	}
	at := 0
	if d.prev != nil {
		at = slices.Index(d.s.msgs, d.prev) + 1
	}
	d.s.msgs = slices.Insert(slices.Clone(d.s.msgs), at, d.m)
	if p.s == d.s {
		p.sync()
	}
}

// commitDelete deletes from its chat the message waiting for its Undo to
// pass, if there is one; if that fails, the chat is loaded again.
func (p *chatPane) commitDelete() {
	d := p.deleted
	if d == nil {
		return
	}
	p.deleted = nil
	p.hideUndo()
	s, u, id := d.s, p.u, d.s.info.ID
	u.write(func() func() {
		err := u.b.DeleteMessage(id, d.m.ID)
		if err == nil {
			return nil
		}
		c, lerr := u.b.Chat(id)
		return func() {
			u.showError(lang.L("Could not delete the message"), err)
			if lerr == nil {
				s.loaded = false
				u.chatLoaded(s, c, nil)
			}
		}
	})
}

// hideDeleted takes the message waiting for its Undo to pass out of s
// again, after s was loaded again from its chat.
func (p *chatPane) hideDeleted(s *session) {
	if d := p.deleted; d != nil && d.s == s {
		if i := s.index(d.m.ID); i >= 0 {
			d.m, d.prev = s.msgs[i], nil
			if i > 0 {
				d.prev = s.msgs[i-1]
			}
			s.msgs = slices.Delete(slices.Clone(s.msgs), i, i+1)
		}
	}
}

// hideUndo hides the Undo bar.
func (p *chatPane) hideUndo() {
	if p.undoBar.Visible() {
		p.undoBar.Hide()
		p.relayoutRoot()
	}
}
