package ui

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/ui/internal/look"
)

// actionButtons are the buttons in a message's header: copy; edit (the
// person's messages); regenerate (answers that did not fail: a failed one
// has Retry) and continue (the last answer, when it was stopped, cut or
// failed midway); delete. They are small icons, reachable with Tab; each
// says what it does beside them (tipText) while the pointer is over it or
// it has the focus.
func (v *messageView) actionButtons() *fyne.Container {
	m := v.m
	v.tipText = newTipText()
	v.tipBox = container.NewCenter(v.tipText)
	v.tipBox.Hide()
	row := container.NewHBox(v.tipBox)
	if m.pending || m.editing {
		return row
	}
	if arrows := v.versionArrows(); arrows != nil {
		row.Add(arrows)
	}
	add := func(tip string, icon fyne.Resource, tapped func(*msgState)) *tipButton {
		b := newTipButton(tip, icon, func() { tapped(v.m) }, v.showTip)
		row.Add(b)
		return b
	}
	v.selB = nil
	if m.Text != "" {
		c := newTipButton(lang.L("Copy"), nil, nil, v.showTip)
		v.act.clip.Attach(&c.Button, func() string { return v.m.Text })
		row.Add(c)
		v.selB = v.selectButton()
		row.Add(v.selB)
	}
	v.editB, v.regenB, v.contB, v.delB = nil, nil, nil, nil
	switch m.Role {
	case "user":
		if v.act.resend != nil {
			v.editB = add(lang.L("Edit"), look.FlatIcon(theme.DocumentCreateIcon()), func(*msgState) { v.startEdit() })
		}
	case "assistant":
		if v.act.regenerate != nil && m.Err == "" {
			v.regenB = add(lang.L("Regenerate"), look.FlatIcon(theme.ViewRefreshIcon()), v.act.regenerate)
		}
		if v.act.resume != nil && v.canContinue() {
			v.contB = add(lang.L("Continue"), look.FlatIcon(theme.MediaFastForwardIcon()), v.act.resume)
		}
	}
	if v.act.remove != nil && !m.local {
		v.delB = add(lang.L("Delete"), look.FlatIcon(theme.DeleteIcon()), v.act.remove)
	}
	return row
}

// showTip shows tip beside the message's actions ("" hides it).
func (v *messageView) showTip(tip string) {
	if v.tipText == nil || v.tipText.Text == tip {
		return
	}
	v.tipText.Text = tip
	v.tipText.Refresh()
	v.tipBox.Hidden = tip == ""
	if v.header != nil {
		v.header.Refresh()
	}
}

// canContinue reports whether the answer can be continued: it is the
// chat's last message, has text, and was stopped, cut or failed.
func (v *messageView) canContinue() bool {
	m := v.m
	return m.Role == "assistant" && m.Text != "" && !m.local && (m.Stopped || m.Cut || m.Err != "") &&
		v.act.last != nil && v.act.last(m)
}

// startEdit turns the person's message into a message box with its text:
// Enter (or Send) sends the edited text, Esc (or Cancel) leaves it as it
// was.
func (v *messageView) startEdit() {
	if v.m.editing {
		return
	}
	v.m.editing = true
	v.edit = newMessageEntry()
	v.edit.SetText(v.m.Text)
	v.edit.onSend = func() { v.finishEdit(true) }
	v.edit.onEscape = func() { v.finishEdit(false) }
	v.update()
	v.changed()
	if v.act.focus != nil {
		v.act.focus(v.edit)
	}
	// The cursor goes after the text. Entry has no call that moves it to
	// a place in the text; PageDown does, once the rows are laid out.
	v.edit.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
}

// finishEdit ends the editing of the person's message and, if send and
// the text is not empty, sends it in its place.
func (v *messageView) finishEdit(send bool) {
	if !v.m.editing {
		return
	}
	text := strings.TrimSpace(v.edit.Text)
	v.m.editing = false
	v.update()
	v.changed()
	if send && text != "" {
		v.act.resend(v.m, text)
	}
}

// editor is the message box of a message being edited, with its buttons.
func (v *messageView) editor() fyne.CanvasObject {
	send := widget.NewButtonWithIcon(lang.L("Send"), theme.MailSendIcon(), func() { v.finishEdit(true) })
	send.Importance = widget.HighImportance
	cancel := widget.NewButton(lang.L("Cancel"), func() { v.finishEdit(false) })
	return container.NewVBox(v.edit, container.NewHBox(send, cancel))
}

// changed tells the pane that the message's height may have changed.
func (v *messageView) changed() {
	if v.act.changed != nil {
		v.act.changed()
	}
}

// isLast reports whether m is the chat's last message.
func (p *chatPane) isLast(m *msgState) bool {
	return p.s != nil && len(p.s.msgs) > 0 && p.s.msgs[len(p.s.msgs)-1] == m
}

// resend sends text in place of the person's message m: the agent drops
// m and what follows (keeping them in the chat file) and answers text.
func (p *chatPane) resend(m *msgState, text string) {
	if m.local {
		p.dropLocal(m)
		p.sendText(text)
		return
	}
	p.action(lang.L("Could not send the edited message"), func(s *session) error {
		return p.u.b.Resend(p.u.ctx, s.info.ID, m.ID, text)
	})
}

// regenerate answers the question of answer m again.
func (p *chatPane) regenerate(m *msgState) {
	p.action(lang.L("Could not answer again"), func(s *session) error {
		return p.u.b.Regenerate(p.u.ctx, s.info.ID, m.ID)
	})
}

// resume asks the model to continue answer m.
func (p *chatPane) resume(m *msgState) {
	p.action(lang.L("Could not continue the answer"), func(s *session) error {
		return p.u.b.Continue(p.u.ctx, s.info.ID, m.ID)
	})
}

// action starts a turn of the current chat with start, called on the
// worker; its events show the turn. A failure to start is shown.
func (p *chatPane) action(what string, start func(s *session) error) {
	s, u := p.s, p.u
	if s == nil || s.busy || !s.loaded {
		return
	}
	p.commitDelete()
	s.busy = true
	p.setBusy(true)
	u.write(func() func() {
		err := start(s)
		if err == nil {
			return nil
		}
		return func() {
			s.busy = false
			if p.s == s {
				p.setBusy(false)
			}
			u.showError(what, err)
		}
	})
}

// dropLocal removes m, a message only the window has, with the local
// question or error next to it.
func (p *chatPane) dropLocal(m *msgState) {
	s := p.s
	i := slices.Index(s.msgs, m)
	if i < 0 {
		return
	}
	from, to := i, i+1
	if m.Role == "assistant" && i > 0 && s.msgs[i-1].local && s.msgs[i-1].Role == "user" {
		from = i - 1
	}
	if m.Role == "user" && to < len(s.msgs) && s.msgs[to].local && s.msgs[to].Role == "assistant" {
		to++
	}
	s.msgs = slices.Delete(slices.Clone(s.msgs), from, to)
	p.sync()
}

// reveal scrolls the chat so that the bottom of o, an object in a message,
// is in view (its top, if it is taller than the view).
func (p *chatPane) reveal(o fyne.CanvasObject) {
	p.scroll.Refresh()
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(p.scroll.Content).Y
	bottom := top + o.Size().Height
	view := p.scroll.Size().Height
	y := p.scroll.Offset.Y
	if bottom > y+view {
		y = bottom - view
	}
	if top < y {
		y = top
	}
	p.scrollTo(y)
}
