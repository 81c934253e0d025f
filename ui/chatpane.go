package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// chatPane shows the selected chat's messages and the message box.
type chatPane struct {
	u         *UI
	s         *session
	views     []*messageView
	msgs      *fyne.Container
	scroll    *container.Scroll
	empty     fyne.CanvasObject
	banner    *widget.Label
	bannerBox *fyne.Container
	input     *messageEntry
	send      *widget.Button
	stopB     *widget.Button
	root      *fyne.Container
}

func newChatPane(u *UI) *chatPane {
	p := &chatPane{u: u, msgs: container.NewVBox()}
	p.scroll = container.NewVScroll(container.NewPadded(p.msgs))
	title := widget.NewLabelWithStyle("Ask anything — Engram remembers what matters.", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	hint := captionLabel("Enter sends · Shift+Enter adds a line · Esc stops · Ctrl+N new chat · Ctrl+F search memories · Ctrl+K search chats")
	hint.seg.Style.Alignment = fyne.TextAlignCenter
	p.empty = container.NewCenter(container.NewVBox(title, hint))
	p.banner = widget.NewLabel("")
	p.banner.Wrapping = fyne.TextWrapWord
	p.banner.Importance = widget.WarningImportance
	dismiss := widget.NewButtonWithIcon("", theme.CancelIcon(), func() {
		p.bannerBox.Hide()
		p.relayoutRoot()
	})
	dismiss.Importance = widget.LowImportance
	p.bannerBox = container.NewBorder(nil, nil, widget.NewIcon(theme.InfoIcon()), dismiss, p.banner)
	p.bannerBox.Hide()

	p.input = newMessageEntry()
	p.input.SetPlaceHolder("Message Engram…")
	p.input.onSend = p.submit
	p.input.onEscape = u.stop
	p.input.onShortcut = u.shortcut
	p.send = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), p.submit)
	p.send.Importance = widget.HighImportance
	p.stopB = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), u.stop)
	p.stopB.Importance = widget.DangerImportance
	p.stopB.Hide()
	buttons := container.NewVBox(p.send, p.stopB)
	inputRow := container.NewBorder(nil, nil, nil, buttons, p.input)
	center := container.NewStack(p.scroll, p.empty)
	p.root = container.NewBorder(p.bannerBox, container.NewPadded(inputRow), nil, nil, center)
	p.updateEmpty()
	return p
}

// focus puts the keyboard focus in the message box.
func (p *chatPane) focus() { p.u.w.Canvas().Focus(p.input) }

// show replaces the pane's content with session s.
func (p *chatPane) show(s *session) {
	p.s = s
	p.views = nil
	p.msgs.Objects = nil
	p.sync()
	p.setBusy(s.busy)
	p.follow(true)
}

// sync adds views for messages the pane does not show yet.
func (p *chatPane) sync() {
	if p.s == nil {
		return
	}
	p.setBusy(p.s.busy)
	same := 0 // the views that still show the session's messages
	for same < len(p.views) && same < len(p.s.msgs) && p.views[same].m == p.s.msgs[same] {
		same++
	}
	if same == len(p.views) && same == len(p.s.msgs) {
		p.updateEmpty()
		return
	}
	bottom := p.atBottom()
	p.views = p.views[:same:same]
	p.msgs.Objects = p.msgs.Objects[:same:same]
	if same > 0 {
		p.views[same-1].update() // it may no longer be the last: its actions change
	}
	for i := same; i < len(p.s.msgs); i++ {
		v := newMessageView(p.s.msgs[i], p.actions())
		p.views = append(p.views, v)
		p.msgs.Objects = append(p.msgs.Objects, v.root)
	}
	p.msgs.Refresh()
	p.updateEmpty()
	p.follow(bottom)
}

// refresh redraws message m. A streaming answer may redraw 30 times a
// second and every refresh of the scroll measures all the messages, so the
// scroll is refreshed once.
func (p *chatPane) refresh(m *msgState) {
	bottom := p.atBottom()
	p.sync()
	for i := len(p.views) - 1; i >= 0; i-- {
		if v := p.views[i]; v.m == m {
			if v.update() {
				p.relayoutBody(v)
			} else {
				p.relayout()
			}
			p.toBottom(bottom)
			return
		}
	}
	p.relayout()
	p.toBottom(bottom)
}

// relayoutBody lays out a message whose text alone changed without
// refreshing the others (a streaming answer may redraw 30 times a second):
// the scroll resizes its content if the messages grew, which lays out what
// changed size; the message and its body are laid out in any case.
func (p *chatPane) relayoutBody(v *messageView) {
	p.scroll.Refresh()
	v.root.Layout.Layout(v.root.Objects, v.root.Size())
	v.body.Layout.Layout(v.body.Objects, v.body.Size())
	canvas.Refresh(v.body)
}

// relayout recomputes the messages' size after one of them changed.
func (p *chatPane) relayout() {
	p.msgs.Refresh()
	p.scroll.Refresh()
}

func (p *chatPane) actions() messageActions {
	return messageActions{
		clip:       clipboard{set: p.u.copy, later: p.u.later},
		retry:      p.retry,
		settings:   p.u.openSettings,
		changed:    p.relayout,
		resend:     p.resend,
		regenerate: p.regenerate,
		resume:     p.resume,
		remove:     p.remove,
		last:       p.isLast,
		reveal:     p.reveal,
		focus:      func(f fyne.Focusable) { p.u.w.Canvas().Focus(f) },
	}
}

// jumpTo scrolls the chat to the top of the message s.jump, if s shows
// and has it, and forgets it.
func (p *chatPane) jumpTo(s *session) {
	id := s.jump
	if id == "" || p.s != s {
		return
	}
	s.jump = ""
	for _, v := range p.views {
		if v.m.ID == id {
			p.scroll.Refresh()
			p.scroll.ScrollToOffset(fyne.NewPos(0, v.root.Position().Y))
			return
		}
	}
}

// atBottom reports whether the view is scrolled to (near) the end, so new
// text should keep it there.
func (p *chatPane) atBottom() bool {
	content := p.scroll.Content.MinSize().Height
	return p.scroll.Offset.Y+p.scroll.Size().Height >= content-2*theme.Padding()-40
}

// follow keeps the view at the end if it was there; the scroll is
// refreshed first so that it knows the content's new size.
func (p *chatPane) follow(wasBottom bool) {
	if wasBottom {
		p.scroll.Refresh()
		p.scroll.ScrollToBottom()
	}
}

// toBottom keeps the view at the end if it was there, once the scroll was
// refreshed.
func (p *chatPane) toBottom(wasBottom bool) {
	if wasBottom {
		p.scroll.ScrollToBottom()
	}
}

func (p *chatPane) updateEmpty() {
	if len(p.views) == 0 {
		p.empty.Show()
	} else {
		p.empty.Hide()
	}
}

// setBusy swaps Send for Stop while a turn runs.
func (p *chatPane) setBusy(busy bool) {
	if busy {
		p.send.Hide()
		p.stopB.Show()
	} else {
		p.stopB.Hide()
		p.send.Show()
	}
}

// notice shows a message that belongs to no chat above the messages.
func (p *chatPane) notice(text string) {
	p.banner.SetText(text)
	p.bannerBox.Show()
	p.relayoutRoot()
}

// relayoutRoot lays the pane out again after the banner came or went.
func (p *chatPane) relayoutRoot() { p.root.Refresh() }

// submit sends the message box's text.
func (p *chatPane) submit() {
	text := strings.TrimSpace(p.input.Text)
	if text == "" {
		return
	}
	if p.sendText(text) {
		p.input.SetText("")
	}
	p.focus()
}

// retry asks again the question that failed answer m replies to: the
// agent answers it again (the question is not recorded twice); a question
// that never reached the agent is sent, its local copy and error removed.
func (p *chatPane) retry(m *msgState) {
	s := p.s
	if s == nil || s.busy {
		return
	}
	if !m.local {
		p.regenerate(m)
		return
	}
	q := s.question(m)
	p.dropLocal(m)
	p.sendText(q)
}

// sendText starts a turn; it reports whether one could start. Before the
// chat's messages have loaded the text waits for them (UI.chatLoaded), so
// that every event of the turn comes after what was loaded.
func (p *chatPane) sendText(text string) bool {
	s := p.s
	if s == nil || s.busy || text == "" {
		return false
	}
	s.busy = true
	p.setBusy(true)
	if !s.loaded {
		s.queued = text
		return true
	}
	p.startTurn(s, text)
	return true
}

// unqueue drops the message of s waiting for its chat to load and gives
// it back to the message box when that is empty.
func (p *chatPane) unqueue(s *session) {
	text := s.queued
	s.queued, s.busy = "", false
	if p.s == s {
		p.setBusy(false)
		if text != "" && p.input.Text == "" {
			p.input.SetText(text)
		}
	}
}

// startTurn sends text to the agent in chat s.
func (p *chatPane) startTurn(s *session, text string) {
	id, u := s.info.ID, p.u
	u.write(func() func() {
		err := u.b.Send(u.ctx, id, text)
		if err == nil {
			return nil
		}
		return func() {
			s.busy = false
			m := &msgState{Message: Message{Role: "assistant"}, local: true}
			m.Err, m.settings = errorText(err)
			s.msgs = append(s.msgs, &msgState{Message: Message{Role: "user", Text: text}, local: true}, m)
			if u.current == id {
				p.sync()
			}
		}
	})
}
