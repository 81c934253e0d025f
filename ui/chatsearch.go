package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/ui/internal/look"
)

// chatSearchLimit bounds the matches a chat search shows.
const chatSearchLimit = 200

// chatSearch is the search box above the chat list: while it holds text,
// the list gives way to the titles and messages of all chats that match;
// choosing one opens its chat at that message. From the search box, ↓
// and ↑ choose a result and Enter opens it (the first when none is chosen).
type chatSearch struct {
	u       *UI
	entry   *searchEntry
	results *widget.List
	none    *caption
	box     *fyne.Container // the results and the "no match" line
	matches []ChatMatch
	query   string // the query matches are for
	chosen  int    // the result ↓ and ↑ chose, -1 for none
}

func newChatSearch(u *UI) *chatSearch {
	cs := &chatSearch{u: u, chosen: -1}
	cs.entry = newSearchEntry()
	cs.entry.onKey = cs.key
	cs.entry.SetPlaceHolder(lang.L("Search chats ({{.Key}})", map[string]any{"Key": shortcutName(fyne.KeyK)}))
	cs.entry.OnChanged = cs.search
	cs.entry.onEscape = func() { cs.entry.SetText("") }
	cs.results = widget.NewList(
		func() int { return len(cs.matches) },
		func() fyne.CanvasObject {
			title := widget.NewLabelWithStyle("Chat title", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			title.Truncation = fyne.TextTruncateEllipsis
			mark := canvas.NewRectangle(color.Transparent)
			mark.CornerRadius = theme.InputRadiusSize()
			return container.NewStack(mark, container.New(look.TightVBox{}, title, captionLabel("snippet")))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(cs.matches) {
				return
			}
			m := cs.matches[i]
			mark := o.(*fyne.Container).Objects[0].(*canvas.Rectangle)
			mark.FillColor = color.Transparent
			if i == cs.chosen {
				mark.FillColor = theme.Color(theme.ColorNameSelection)
			}
			mark.Refresh()
			row := o.(*fyne.Container).Objects[1].(*fyne.Container)
			row.Objects[0].(*widget.Label).SetText(chatTitle(ChatInfo{Title: m.Title}))
			what := lang.L("title")
			if m.MsgID != "" {
				what = m.Role + ": " + oneLine(m.Snippet, 120)
			}
			row.Objects[1].(*caption).SetText(what)
		})
	cs.results.OnSelected = func(i widget.ListItemID) {
		cs.results.UnselectAll()
		if i < len(cs.matches) {
			cs.open(cs.matches[i])
		}
	}
	cs.none = captionLabel(lang.L("No chat or message matches."))
	cs.box = container.NewBorder(cs.none, nil, nil, nil, cs.results)
	cs.box.Hide()
	return cs
}

// focus puts the keyboard focus in the search box, its text selected.
func (cs *chatSearch) focus() {
	cs.u.w.Canvas().Focus(cs.entry)
	cs.entry.selectAll()
}

// search looks for query in all chats in the background and shows the
// matches, unless the query changed meanwhile.
func (cs *chatSearch) search(query string) {
	u := cs.u
	if query == "" {
		cs.show("", nil)
		return
	}
	u.bg(func() func() {
		found := u.b.SearchChats(query, chatSearchLimit)
		return func() {
			if cs.entry.Text == query {
				cs.show(query, found)
			}
		}
	})
}

// key moves the chosen result (↓, ↑) or opens it (Enter); it reports
// whether it took k.
func (cs *chatSearch) key(k fyne.KeyName) bool {
	if cs.query == "" || len(cs.matches) == 0 {
		return false
	}
	switch k {
	case fyne.KeyDown:
		cs.chosen = min(cs.chosen+1, len(cs.matches)-1)
	case fyne.KeyUp:
		cs.chosen = max(cs.chosen-1, 0)
	case fyne.KeyReturn, fyne.KeyEnter:
		cs.open(cs.matches[max(cs.chosen, 0)])
		return true
	default:
		return false
	}
	cs.results.Refresh()
	cs.results.ScrollTo(cs.chosen)
	return true
}

// show replaces the matches and shows the results or the chat list.
func (cs *chatSearch) show(query string, found []ChatMatch) {
	cs.query, cs.matches, cs.chosen = query, found, -1
	if query == "" {
		cs.box.Hide()
		cs.u.list.list.Show()
	} else {
		cs.u.list.list.Hide()
		cs.box.Show()
		if len(found) == 0 {
			cs.none.Show()
		} else {
			cs.none.Hide()
		}
	}
	cs.results.Refresh()
	cs.box.Refresh()
}

// open shows the chat of m at its message.
func (cs *chatSearch) open(m ChatMatch) {
	u := cs.u
	s := u.session(m.ChatID)
	s.jump = m.MsgID
	u.selectChat(m.ChatID)
	if s.loaded {
		u.pane.jumpTo(s)
	}
}

// searchEntry is an entry that reports Esc, and gives onKey the keys it
// does not type (the arrows, Enter) first.
type searchEntry struct {
	widget.Entry
	onEscape func()
	onKey    func(fyne.KeyName) bool // true when it took the key
}

func newSearchEntry() *searchEntry {
	e := &searchEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey handles Esc and leaves the rest to the entry.
func (e *searchEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	if e.onKey != nil && e.onKey(k.Name) {
		return
	}
	e.Entry.TypedKey(k)
}

// selectAll selects the entry's text.
func (e *searchEntry) selectAll() {
	e.TypedShortcut(&fyne.ShortcutSelectAll{})
}
