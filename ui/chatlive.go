package ui

import "slices"

// chatChangedElsewhere shows what another process (engramctl chat, a
// second window) wrote to chat id: the chat list again, and the chat's
// messages again if the window has them and runs no turn there. A chat
// with a turn running shows them when it is next opened.
func (u *UI) chatChangedElsewhere(id string) {
	u.refreshChats()
	s, ok := u.sessions[id]
	if !ok || !s.loaded || s.busy {
		return
	}
	u.write(func() func() {
		c, err := u.b.Chat(id)
		return func() {
			if err != nil || !s.loaded || s.busy {
				return // the chat could not be read: it stays as shown
			}
			u.showMerged(s, c)
		}
	})
}

// showMerged shows c, a newer copy of the chat of s, keeping what only the
// window knows of the messages it already had (their notices, an open
// disclosure) and its local messages after the message they followed.
func (u *UI) showMerged(s *session, c Chat) {
	had := map[string]*msgState{}
	after := map[string][]*msgState{} // local messages by the ID of the message before them
	prev := ""
	for _, m := range s.msgs {
		switch {
		case m.local:
			after[prev] = append(after[prev], m)
		case m.ID != "":
			had[m.ID], prev = m, m.ID
		}
	}
	msgs := slices.Clone(after[""])
	delete(after, "")
	var changed []*msgState
	for _, m := range c.Messages {
		m = wordSaved(m)
		st, ok := had[m.ID]
		switch {
		case !ok:
			st = savedMessage(m)
		case st.Text != m.Text || st.Err != m.Err:
			st.Message = m
			changed = append(changed, st)
		}
		msgs = append(msgs, st)
		msgs = append(msgs, after[m.ID]...)
		delete(after, m.ID)
	}
	for _, m := range s.msgs { // those after a message the copy no longer has
		if !m.local && after[m.ID] != nil {
			msgs = append(msgs, after[m.ID]...)
		}
	}
	s.info, s.msgs = c.Info, msgs
	if u.current != s.info.ID {
		return
	}
	u.bar.showChat(s.info)
	u.pane.sync()
	for _, m := range changed {
		u.pane.refresh(m)
	}
}
