package ui

import (
	"errors"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"

	"engram/agent"
)

// openMemory shows in the inspector a memory an answer's disclosure links
// to (see chatPane.OnOpenMemory): the inspector opens on the memory's
// store and its detail view shows the memory as the store holds it now (a
// chat keeps only a reference). A memory forgotten since says so.
func (u *UI) openMemory(h agent.RecalledHit) {
	if !u.inspectorOpen {
		u.toggleInspector()
	}
	if u.insp.scope != h.Scope {
		u.insp.setScope(h.Scope)
	}
	scope, dir, id := h.Scope, u.insp.dirOf(h.Scope), h.Entry.ID
	u.bg(func() func() {
		st, err := u.b.Memory(scope, dir)
		if err == nil && st == nil {
			err = errors.New("no store")
		}
		if err != nil {
			return func() { u.showError(lang.L("Could not open the memories"), err) }
		}
		for _, e := range st.List() {
			if e.ID == id {
				return func() {
					if u.insp.scope == scope {
						u.insp.detail.open(e)
					}
				}
			}
		}
		return func() {
			u.showDialog(dialog.NewInformation(lang.L("Memory"), lang.L("This memory is no longer kept."), u.w))
		}
	})
}
