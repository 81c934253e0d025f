package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// overscan is how far beyond the visible part of the chat messages are
// built and laid out, so that a scroll shows them at once.
const overscan = 400

// msgList lays out the chat's messages in the scroll's content without
// building them all: only the messages in view (and overscan around it)
// have a view, which is built the first time it is needed and then kept
// with its message (msgState.view), so its Markdown is parsed once. The
// others count with the height they had at this width or, before they were
// ever shown, an estimate from their text.
type msgList struct {
	p       *chatPane
	msgs    []*msgState // the messages, as in the session when last synced
	heights []float32   // each message's height, measured or estimated
	at      []float32   // the width each height was measured at (0: estimated)
	width   float32     // the width laid out at
	first   int         // the first message laid out
	shown   int         // how many are laid out from first
}

// reset forgets the messages.
func (l *msgList) reset() {
	l.msgs, l.heights, l.at = nil, nil, nil
}

// sync follows the session's messages: it keeps the common prefix,
// estimates the heights of the rest and returns how many were kept.
func (l *msgList) sync(msgs []*msgState) int {
	same := 0
	for same < len(l.msgs) && same < len(msgs) && l.msgs[same] == msgs[same] {
		same++
	}
	l.msgs = append(l.msgs[:same:same], msgs[same:]...)
	l.heights, l.at = l.heights[:same:same], l.at[:same:same]
	for _, m := range msgs[same:] {
		l.heights = append(l.heights, estimateHeight(m, l.width))
		l.at = append(l.at, 0)
	}
	return same
}

// estimateHeight guesses the height of m's view at width w from the lines
// of its text, for a message never shown.
func estimateHeight(m *msgState, w float32) float32 {
	perLine := max(20, int(max(w, 300)/7.5))
	lines, n := 0, 0
	for _, r := range m.Text {
		n++
		if r == '\n' || n == perLine {
			lines++
			n = 0
		}
	}
	const lineHeight, chrome = 20, 80
	return chrome + float32(lines+1)*lineHeight
}

// view returns the view of message i, building it if needed.
func (l *msgList) view(i int) *messageView {
	m := l.msgs[i]
	if m.view == nil {
		m.view = newMessageView(m, l.p.actions())
	}
	return m.view
}

// measure lays the view of message i out at the list's width and records
// its height; it reports whether the height changed.
func (l *msgList) measure(i int) bool {
	v := l.view(i)
	h := l.heights[i]
	for range 3 { // wrapped text knows its height once it has its width
		v.root.Resize(fyne.NewSize(l.width, h))
		nh := v.root.MinSize().Height
		if nh == h {
			break
		}
		h = nh
	}
	changed := h != l.heights[i]
	l.heights[i], l.at[i] = h, l.width
	return changed
}

// remeasure measures the messages laid out again (their content changed)
// and reports whether a height changed.
func (l *msgList) remeasure() bool {
	changed := false
	for i := l.first; i < l.first+l.shown && i < len(l.msgs); i++ {
		changed = l.measure(i) || changed
	}
	return changed
}

// index returns the index of m in the list, or -1.
func (l *msgList) index(m *msgState) int {
	for i := len(l.msgs) - 1; i >= 0; i-- {
		if l.msgs[i] == m {
			return i
		}
	}
	return -1
}

// gap is the space between two messages.
func gap() float32 { return theme.Padding() }

// total is the height of all the messages.
func (l *msgList) total() float32 {
	var h float32
	for _, x := range l.heights {
		h += x
	}
	if n := len(l.heights); n > 1 {
		h += float32(n-1) * gap()
	}
	return h
}

// top is the y of message i in the list.
func (l *msgList) top(i int) float32 {
	var y float32
	for _, h := range l.heights[:i] {
		y += h + gap()
	}
	return y
}

// MinSize is the height of all the messages; their width follows the
// pane's.
func (l *msgList) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(0, l.total())
}

// Layout lays out the messages in view at width size.Width.
func (l *msgList) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	l.place()
}

// place builds, measures and positions the messages in view (with the
// overscan) and makes them the container's objects. Messages measured at
// another width are measured again when they come into view; when those
// above the top of the view change height, the view moves with them, so
// what it shows stays put.
func (l *msgList) place() {
	if shift := l.layOut(); shift != 0 {
		p := l.p
		p.scroll.ScrollToOffset(fyne.NewPos(0, max(0, p.scroll.Offset.Y+shift)))
		l.layOut()
	}
}

// layOut does the work of place and returns how much the messages above
// the top of the view grew.
func (l *msgList) layOut() (shift float32) {
	p := l.p
	if l.width <= 0 {
		return 0
	}
	off := p.scroll.Offset.Y - p.msgs.Position().Y
	from, to := off-overscan, off+p.scroll.Size().Height+overscan
	old := len(p.msgs.Objects)
	objs := p.msgs.Objects[:0]
	l.first, l.shown = 0, 0
	var y float32
	for i := range l.msgs {
		if y > to {
			break
		}
		if y+l.heights[i] < from {
			l.first = i + 1
		} else {
			if l.at[i] != l.width {
				was := l.heights[i]
				l.measure(i)
				if y < off {
					shift += l.heights[i] - was
				}
			}
			v := l.view(i)
			v.root.Move(fyne.NewPos(0, y))
			v.root.Resize(fyne.NewSize(l.width, l.heights[i]))
			objs = append(objs, v.root)
			l.shown++
		}
		y += l.heights[i] + gap()
	}
	if old > len(objs) {
		clear(p.msgs.Objects[len(objs):old])
	}
	p.msgs.Objects = objs
	l.p.views = l.p.views[:0]
	for _, m := range l.msgs {
		l.p.views = append(l.p.views, m.view)
	}
	canvas.Refresh(p.msgs)
	return shift
}
