package ui

import (
	"slices"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"

	"engram/agent"
	"engram/agent/chat"
	"engram/ui/internal/look"
)

// versionShower is the part of the agent that shows another version of a
// place of a chat (see agent.Agent.ShowVersion). A backend that is none
// shows no version arrows.
type versionShower interface {
	ShowVersion(chatID, msgID, versionID string) error
}

var _ versionShower = AgentBackend{}

// keepBranch records that the messages from index i on are kept as a
// branch, as the agent keeps them when a turn replaces them (see
// startTurn), so that their place offers them as a version.
func (s *session) keepBranch(i int, now time.Time) {
	b := agent.Branch{At: i, Time: now}
	if i > 0 {
		b.After = s.msgs[i-1].ID
	}
	for _, m := range s.msgs[i:] {
		if !m.local {
			b.Messages = append(b.Messages, m.Message)
		}
	}
	if len(b.Messages) > 0 {
		s.branches = append(slices.Clip(s.branches), b)
	}
	s.hideNotices(s.msgs[i:])
}

// versions returns the versions of the place of s that m starts (see
// chat.Chat.Versions) and the index of m's: one version where nothing was
// edited or regenerated.
func (s *session) versions(m *msgState) ([]string, int) {
	if len(s.branches) == 0 || m.ID == "" || m.local {
		return nil, 0
	}
	i := s.index(m.ID)
	if i < 0 {
		return nil, 0
	}
	prev := ""
	if i > 0 {
		prev = s.msgs[i-1].ID
	}
	return chat.VersionsAt(s.branches, i, prev, m.Message)
}

// versionArrows are "‹ 1/2 ›" for a message whose place has more than
// one version, nil for the others.
func (v *messageView) versionArrows() fyne.CanvasObject {
	v.prevB, v.nextB, v.versionText = nil, nil, ""
	if v.act.versions == nil {
		return nil
	}
	ids, shown := v.act.versions(v.m)
	if len(ids) < 2 {
		return nil
	}
	arrow := func(tip string, icon fyne.Resource, to int) *tipButton {
		b := newTipButton(tip, look.FlatIcon(icon), func() { v.act.showVersion(v.m, ids[to]) }, v.showTip)
		if to < 0 || to >= len(ids) {
			b.OnTapped = nil
			b.Disable()
		}
		return b
	}
	v.prevB = arrow(lang.L("Previous version"), theme.NavigateBackIcon(), shown-1)
	v.nextB = arrow(lang.L("Next version"), theme.NavigateNextIcon(), shown+1)
	v.versionText = strconv.Itoa(shown+1) + "/" + strconv.Itoa(len(ids))
	at := captionLabel(v.versionText)
	at.Wrapping = fyne.TextWrapOff
	return container.NewHBox(v.prevB, container.NewCenter(at), v.nextB)
}

// versionKey sums up the version arrows for chromeKey.
func (v *messageView) versionKey() string {
	if v.act.versions == nil {
		return ""
	}
	ids, shown := v.act.versions(v.m)
	if len(ids) < 2 {
		return ""
	}
	return strconv.Itoa(shown) + "/" + strconv.Itoa(len(ids))
}

// versionsOf is the pane's versions action: the versions of the current
// chat, when the backend can show them.
func (p *chatPane) versionsOf(m *msgState) ([]string, int) {
	if _, ok := p.u.b.(versionShower); !ok || p.s == nil {
		return nil, 0
	}
	return p.s.versions(m)
}

// showVersion shows version id of the place that m starts: the agent swaps
// the messages, and the chat is loaded again, scrolled to the version.
func (p *chatPane) showVersion(m *msgState, id string) {
	s, u := p.s, p.u
	vs, ok := u.b.(versionShower)
	if !ok || s == nil || s.busy || !s.loaded || s.switching {
		return
	}
	p.commitDelete()
	s.switching = true
	chatID := s.info.ID
	u.write(func() func() {
		err := vs.ShowVersion(chatID, m.ID, id)
		var c Chat
		if err == nil {
			c, err = u.b.Chat(chatID)
		}
		return func() {
			s.switching = false
			if err != nil {
				u.showError(lang.L("Could not show the other version"), err)
				return
			}
			s.branches, s.branchesRead = c.Branches, true
			s.loaded, s.jump = false, id
			s.hideNotices(s.msgs)
			u.chatLoaded(s, c, nil)
		}
	})
}

// readBranches reads the branches of s, once, if the backend can show
// versions, and redraws the messages with their arrows.
func (p *chatPane) readBranches(s *session) {
	if _, ok := p.u.b.(versionShower); !ok || s.branchesRead || !s.loaded || s.info.Temporary {
		return
	}
	s.branchesRead = true
	u, id := p.u, s.info.ID
	u.write(func() func() {
		c, err := u.b.Chat(id)
		if err != nil || len(c.Branches) == 0 {
			return nil
		}
		return func() {
			s.branches = c.Branches
			if p.s != s {
				return
			}
			for _, m := range s.msgs {
				if m.view != nil {
					m.view.update()
				}
			}
			p.relayout()
		}
	})
}

// hideNotices keeps the notices of msgs, by ID, before a regeneration,
// an edit or a version switch takes them away (see session.hidden).
func (s *session) hideNotices(msgs []*msgState) {
	for _, m := range msgs {
		if m.ID != "" && len(m.notices) > 0 {
			if s.hidden == nil {
				s.hidden = map[string][]string{}
			}
			s.hidden[m.ID] = m.notices
		}
	}
}

// showNotices gives the messages loaded the notices a version switch hid.
func (s *session) showNotices() {
	for _, m := range s.msgs {
		if n, ok := s.hidden[m.ID]; ok && len(m.notices) == 0 {
			m.notices = n
		}
	}
}
