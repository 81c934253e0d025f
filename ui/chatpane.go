package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/ui/internal/markdown"
)

// chatPane shows the selected chat's messages and the message box.
type chatPane struct {
	u         *UI
	s         *session
	views     []*messageView // the views of the messages, nil for those never shown
	ml        *msgList
	msgs      *fyne.Container // the messages laid out, by ml
	scroll    *container.Scroll
	empty     fyne.CanvasObject
	banner    *widget.Label
	bannerBox *fyne.Container
	input     *messageEntry
	send      *widget.Button
	stopB     *widget.Button
	root      *fyne.Container
	undoBar   *fyne.Container // "Message deleted · Undo"
	undoB     *widget.Button
	deleted   *deletion // the message deleted last, while its Undo shows
	// OnOpenMemory, if set, shows a memory that an answer's disclosure
	// lists (recalled or pinned) in the inspector: tapping its row calls it.
	OnOpenMemory func(h agent.RecalledHit)
}

func newChatPane(u *UI) *chatPane {
	p := &chatPane{u: u}
	p.ml = &msgList{p: p}
	p.msgs = container.New(p.ml)
	p.scroll = container.NewVScroll(container.NewPadded(p.msgs))
	p.scroll.OnScrolled = func(fyne.Position) { p.ml.place() }
	title := widget.NewLabelWithStyle(lang.L("Ask anything — Engram remembers what matters."), fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	hint := captionLabel(lang.L("Enter sends · Shift+Enter adds a line · Esc stops · {{.New}} new chat · {{.Memories}} search memories · {{.Chats}} search chats · {{.Sheet}} all shortcuts",
		map[string]any{"New": shortcutName(fyne.KeyN), "Memories": shortcutName(fyne.KeyF),
			"Chats": shortcutName(fyne.KeyK), "Sheet": shortcutName(fyne.KeySlash)}))
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
	p.input.SetPlaceHolder(lang.L("Message Engram…"))
	p.input.onSend = p.submit
	p.input.onEscape = u.stop
	p.input.onShortcut = u.shortcut
	p.send = widget.NewButtonWithIcon(lang.L("Send"), theme.MailSendIcon(), p.submit)
	p.send.Importance = widget.HighImportance
	p.stopB = widget.NewButtonWithIcon(lang.L("Stop"), theme.MediaStopIcon(), u.stop)
	p.stopB.Importance = widget.DangerImportance
	p.stopB.Hide()
	buttons := container.NewVBox(p.send, p.stopB)
	inputRow := container.NewBorder(nil, nil, nil, buttons, p.input)
	center := container.NewStack(p.scroll, p.empty)
	p.undoBar = p.newUndoBar()
	p.root = container.NewBorder(p.bannerBox, container.NewPadded(container.NewVBox(p.undoBar, inputRow)), nil, nil, center)
	p.updateEmpty()
	return p
}

// focus puts the keyboard focus in the message box.
func (p *chatPane) focus() { p.u.w.Canvas().Focus(p.input) }

// show replaces the pane's content with session s.
func (p *chatPane) show(s *session) {
	if p.deleted != nil && p.deleted.s != s {
		p.commitDelete()
	}
	p.hideDeleted(s)
	p.s = s
	p.views = nil
	p.ml.reset()
	p.msgs.Objects = nil
	p.sync()
	p.setBusy(s.busy)
	p.follow(true)
	p.readBranches(s)
}

// sync follows the session's messages: views of messages no longer there
// go, new messages are added (their views are built when they come into
// view).
func (p *chatPane) sync() {
	if p.s == nil {
		return
	}
	p.setBusy(p.s.busy)
	before := len(p.ml.msgs)
	bottom := p.atBottom()
	same := p.ml.sync(p.s.msgs)
	if same == before && same == len(p.s.msgs) {
		p.updateEmpty()
		return
	}
	if same > 0 {
		if v := p.s.msgs[same-1].view; v != nil {
			v.update() // it may no longer be the last: its actions change
			p.ml.at[same-1] = 0
		}
	}
	p.scroll.Refresh()
	p.updateEmpty()
	p.follow(bottom)
}

// refresh redraws message m. A streaming answer may redraw 30 times a
// second, so when only its text changed the others are left alone, and
// the scroll is refreshed only if the answer grew.
func (p *chatPane) refresh(m *msgState) {
	bottom := p.atBottom()
	p.sync()
	i := p.ml.index(m)
	if i < 0 || m.view == nil {
		p.relayout()
		p.toBottom(bottom)
		return
	}
	v := m.view
	if v.update() {
		p.relayoutBody(i, v)
	} else {
		p.relayout()
	}
	p.toBottom(bottom)
}

// relayoutBody lays out message i, whose text alone changed, without
// refreshing the others: the scroll resizes its content if the message
// grew; the message and its body are laid out in any case.
func (p *chatPane) relayoutBody(i int, v *messageView) {
	if p.ml.measure(i) {
		p.scroll.Refresh()
	}
	v.root.Layout.Layout(v.root.Objects, v.root.Size())
	v.body.Layout.Layout(v.body.Objects, v.body.Size())
	canvas.Refresh(v.body)
}

// relayout recomputes the messages' size after one of them changed.
func (p *chatPane) relayout() {
	p.ml.remeasure()
	p.msgs.Refresh()
	p.scroll.Refresh()
}

func (p *chatPane) actions() messageActions {
	return messageActions{
		clip:        markdown.Clipboard{Set: p.u.copy, Later: p.u.later},
		retry:       p.retry,
		settings:    p.u.openSettings,
		changed:     p.relayout,
		resend:      p.resend,
		regenerate:  p.regenerate,
		resume:      p.resume,
		remove:      p.remove,
		last:        p.isLast,
		reveal:      p.reveal,
		focus:       func(f fyne.Focusable) { p.u.w.Canvas().Focus(f) },
		openMemory:  p.openMemory(),
		versions:    p.versionsOf,
		showVersion: p.showVersion,
	}
}

// openMemory is what the disclosures' memory rows call: OnOpenMemory, or
// nil while there is none.
func (p *chatPane) openMemory() func(h agent.RecalledHit) {
	if p.OnOpenMemory == nil {
		return nil
	}
	return func(h agent.RecalledHit) { p.OnOpenMemory(h) }
}

// jumpTo scrolls the chat to the top of the message s.jump, if s shows
// and has it, and forgets it.
func (p *chatPane) jumpTo(s *session) {
	id := s.jump
	if id == "" || p.s != s {
		return
	}
	s.jump = ""
	for i, m := range p.ml.msgs {
		if m.ID == id {
			p.scrollTo(p.ml.top(i) + p.msgs.Position().Y)
			return
		}
	}
}

// scrollTo scrolls the chat to y and lays out what came into view.
func (p *chatPane) scrollTo(y float32) {
	p.scroll.Refresh()
	p.scroll.ScrollToOffset(fyne.NewPos(0, y))
	p.ml.place()
}

// atBottom reports whether the view is scrolled to (near) the end, so new
// text should keep it there.
func (p *chatPane) atBottom() bool {
	content := p.scroll.Content.MinSize().Height
	return p.scroll.Offset.Y+p.scroll.Size().Height >= content-2*theme.Padding()-40
}

// follow keeps the view at the end if it was there; the scroll is
// refreshed first so that it knows the content's new size. The messages
// that come into view are measured, which may change the end: it scrolls
// again until the end stays put.
func (p *chatPane) follow(wasBottom bool) {
	if !wasBottom {
		return
	}
	for range 4 {
		total := p.ml.total()
		p.scroll.Refresh()
		p.scroll.ScrollToBottom()
		p.ml.place()
		if p.ml.total() == total {
			return
		}
	}
}

// toBottom keeps the view at the end if it was there, once the scroll was
// refreshed.
func (p *chatPane) toBottom(wasBottom bool) {
	if wasBottom {
		p.scroll.ScrollToBottom()
		p.ml.place()
	}
}

func (p *chatPane) updateEmpty() {
	if len(p.ml.msgs) == 0 {
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
	p.commitDelete()
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
