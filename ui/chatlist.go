package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// chatList is the left column: New chat, the chat search, and the chats,
// newest first, each with a menu to rename or delete it.
type chatList struct {
	u      *UI
	list   *widget.List
	search *chatSearch
	root   fyne.CanvasObject
	sel    int // the selected row, -1 for none
}

func newChatList(u *UI) *chatList {
	l := &chatList{u: u, sel: -1}
	l.list = widget.NewList(
		func() int { return len(u.chats) },
		func() fyne.CanvasObject {
			title := widget.NewLabel("Chat title")
			title.Truncation = fyne.TextTruncateEllipsis
			when := captionLabel("yesterday")
			when.Wrapping = fyne.TextWrapOff
			more := widget.NewButtonWithIcon("", theme.MoreHorizontalIcon(), nil)
			more.Importance = widget.LowImportance
			return container.NewBorder(nil, nil, nil, more, container.NewVBox(title, when))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(u.chats) {
				return
			}
			c := u.chats[i]
			row := o.(*fyne.Container)
			texts := row.Objects[0].(*fyne.Container)
			texts.Objects[0].(*widget.Label).SetText(chatTitle(c))
			texts.Objects[1].(*caption).SetText(chatCaption(c, time.Now()))
			more := row.Objects[1].(*widget.Button)
			more.OnTapped = func() { l.menu(c, more) }
		})
	l.list.OnSelected = func(i widget.ListItemID) {
		l.sel = i
		if i < len(u.chats) && u.chats[i].ID != u.current {
			u.selectChat(u.chats[i].ID)
		}
	}
	add := widget.NewButtonWithIcon(lang.L("New chat"), theme.ContentAddIcon(), u.newChat)
	add.Alignment = widget.ButtonAlignLeading
	temp := widget.NewButtonWithIcon(lang.L("Temporary"), theme.VisibilityOffIcon(), u.newTemporaryChat)
	temp.Importance = widget.LowImportance
	l.search = newChatSearch(u)
	top := container.NewVBox(container.NewPadded(container.NewBorder(nil, nil, nil, temp, add)),
		container.NewPadded(l.search.entry))
	l.root = container.NewBorder(top, nil, nil, nil, container.NewStack(l.list, l.search.box))
	return l
}

// newChat creates a chat and selects it.
func (u *UI) newChat() {
	u.write(func() func() {
		c, err := u.b.NewChat()
		return func() {
			if err != nil {
				u.showError(lang.L("Could not create a chat"), err)
				return
			}
			u.sessions[c.ID] = &session{info: c, loaded: true}
			u.setChats(append([]ChatInfo{c}, u.chats...))
			u.selectChat(c.ID)
		}
	})
}

// newTemporaryChat creates a temporary chat (no memory in or out, no file)
// and selects it.
func (u *UI) newTemporaryChat() {
	c := u.b.NewTemporaryChat()
	u.sessions[c.ID] = &session{info: c, loaded: true}
	u.setChats(append([]ChatInfo{c}, u.chats...))
	u.selectChat(c.ID)
}

// chatTitle is the title to show for c.
func chatTitle(c ChatInfo) string {
	switch {
	case c.Title != "":
		return c.Title
	case c.Temporary:
		return lang.L("Temporary chat")
	}
	return lang.L("New chat")
}

// chatCaption says when c was last active and its project.
func chatCaption(c ChatInfo, now time.Time) string {
	var s string
	if !c.Updated.IsZero() {
		s = since(c.Updated, now)
	}
	if c.Project != "" {
		s += " · " + baseName(c.Project)
	}
	if c.Temporary {
		s += " · " + lang.L("no memory, not kept")
	}
	return s
}

// refresh redraws the list and keeps the current chat selected.
func (l *chatList) refresh() {
	l.list.Refresh()
	l.selectID(l.u.current)
}

// selectID highlights chat id (the rows move as chats are used).
func (l *chatList) selectID(id string) {
	for i, c := range l.u.chats {
		if c.ID == id {
			if l.sel != i {
				l.sel = i
				l.list.Select(i)
			}
			return
		}
	}
	l.sel = -1
	l.list.UnselectAll()
}

// menu shows Rename and Delete for chat c.
func (l *chatList) menu(c ChatInfo, at fyne.CanvasObject) {
	menu := fyne.NewMenu("",
		fyne.NewMenuItem(lang.L("Rename…"), func() { l.rename(c) }),
		fyne.NewMenuItem(lang.L("Delete…"), func() { l.remove(c) }),
	)
	cv := l.u.w.Canvas()
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(at)
	widget.ShowPopUpMenuAtPosition(menu, cv, pos.Add(fyne.NewPos(0, at.Size().Height)))
}

// rename asks for a new title.
func (l *chatList) rename(c ChatInfo) {
	u := l.u
	e := u.dialogEntry()
	e.SetText(chatTitle(c))
	d := dialog.NewForm(lang.L("Rename chat"), lang.L("Rename"), lang.L("Cancel"),
		[]*widget.FormItem{widget.NewFormItem(lang.L("Title"), e)}, func(ok bool) {
			if !ok || e.Text == "" {
				return
			}
			title := e.Text
			u.write(func() func() {
				err := u.b.RenameChat(c.ID, title)
				return func() {
					if err != nil {
						u.showError(lang.L("Could not rename the chat"), err)
						return
					}
					u.changeInfo(c.ID, func(c *ChatInfo) { c.Title = title })
				}
			})
		}, u.w)
	submitOnEnter(d, &e.Entry)
	d.Resize(fyne.NewSize(420, d.MinSize().Height))
	u.showDialog(d)
	u.w.Canvas().Focus(e)
}

// remove deletes chat c after asking. The question is a plain wrapped
// label: the confirm dialog's "?" drawn behind the text ran into it.
func (l *chatList) remove(c ChatInfo) {
	u := l.u
	q := widget.NewLabel(lang.L("Delete “{{.Title}}”? Its messages are removed; memories stay.",
		map[string]any{"Title": chatTitle(c)}))
	q.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(lang.L("Delete chat"), lang.L("Delete"), lang.L("Cancel"), q,
		func(ok bool) {
			if !ok {
				return
			}
			u.write(func() func() {
				err := u.b.DeleteChat(c.ID)
				return func() {
					if err != nil {
						u.showError(lang.L("Could not delete the chat"), err)
						return
					}
					u.chatDeleted(c.ID)
				}
			})
		}, u.w)
	d.Resize(fyne.NewSize(min(460, u.w.Canvas().Size().Width-20), 0))
	u.showDialog(d)
}

// chatDeleted drops chat id from the window and selects another (creating
// one when none is left).
func (u *UI) chatDeleted(id string) {
	delete(u.sessions, id)
	var rest []ChatInfo
	for _, c := range u.chats {
		if c.ID != id {
			rest = append(rest, c)
		}
	}
	u.chats = rest
	u.list.refresh()
	if u.current != id {
		return
	}
	u.current = ""
	if len(rest) == 0 {
		u.newChat()
		return
	}
	u.selectChat(rest[0].ID)
}
