package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/memory"
)

// selection is the inspector's multi-select: the Select button, the marked
// memories and the bar of what can be done to them all at once.
type selection struct {
	i      *inspector
	on     bool
	ids    map[string]bool
	toggle *widget.Button
	label  *widget.Label
	box    *fyne.Container
}

func newSelection(i *inspector) *selection {
	s := &selection{i: i, ids: map[string]bool{}}
	s.toggle = widget.NewButtonWithIcon(lang.L("Select"), theme.CheckButtonCheckedIcon(), s.flip)
	s.toggle.Importance = widget.LowImportance
	s.label = widget.NewLabel("")
	all := widget.NewButton(lang.L("All"), s.selectAll)
	pin := widget.NewButton(lang.L("Pin"), func() { i.setPinned(s.entries(), true) })
	unpin := widget.NewButton(lang.L("Unpin"), func() { i.setPinned(s.entries(), false) })
	del := widget.NewButtonWithIcon(lang.L("Delete"), theme.DeleteIcon(), func() { i.remove(s.entries()) })
	del.Importance = widget.DangerImportance
	done := widget.NewButton(lang.L("Done"), s.flip)
	s.box = container.NewVBox(container.NewHBox(s.label, layout.NewSpacer(), done),
		container.NewHBox(all, pin, unpin, del))
	s.box.Hide()
	return s
}

// flip starts or ends selecting.
func (s *selection) flip() {
	s.on = !s.on
	clear(s.ids)
	if s.on {
		s.i.detail.close()
		s.toggle.Importance = widget.HighImportance
	} else {
		s.toggle.Importance = widget.LowImportance
	}
	s.toggle.Refresh()
	s.update()
	s.i.list.Refresh()
}

// clear ends selecting.
func (s *selection) clear() {
	if s.on {
		s.flip()
	}
}

// toggleSelected marks or unmarks memory id.
func (i *inspector) toggleSelected(id string) {
	if i.sel.ids[id] {
		delete(i.sel.ids, id)
	} else {
		i.sel.ids[id] = true
	}
	i.sel.update()
	i.list.Refresh()
}

// selectAll marks every memory shown.
func (s *selection) selectAll() {
	for _, r := range s.i.rows {
		s.ids[r.e.ID] = true
	}
	s.update()
	s.i.list.Refresh()
}

// entries are the marked memories still shown, in list order.
func (s *selection) entries() []memory.Entry {
	var out []memory.Entry
	for _, r := range s.i.rows {
		if s.ids[r.e.ID] {
			out = append(out, r.e)
		}
	}
	return out
}

// update shows the bar while selecting, with the count; marks of memories
// no longer shown are dropped.
func (s *selection) update() {
	if !s.on && !s.box.Visible() {
		return
	}
	shown := map[string]bool{}
	for _, r := range s.i.rows {
		shown[r.e.ID] = true
	}
	for id := range s.ids {
		if !shown[id] {
			delete(s.ids, id)
		}
	}
	s.label.SetText(count("{{.Count}} selected", len(s.ids)))
	if s.on != s.box.Visible() {
		s.box.Hidden = !s.on
		s.i.relayout()
	}
}

// remove deletes es and offers to undo it: one Undo puts them all back.
func (i *inspector) remove(es []memory.Entry) {
	st := i.store
	if st == nil || len(es) == 0 {
		return
	}
	ids := make([]string, len(es))
	for n, e := range es {
		ids[n] = e.ID
	}
	i.u.write(func() func() {
		done, err := st.RemoveAll(ids)
		return func() {
			if len(done) > 0 {
				i.offerUndo(deletedText(es, len(done)), st, func(st MemoryStore) error {
					for _, id := range done {
						if err := st.Restore(id); err != nil {
							return fmt.Errorf("%s: %w", lang.L("Could not undo the delete"), err)
						}
					}
					return nil
				})
			}
			if err != nil {
				i.ed.fail(err)
				return
			}
			i.ed.close()
			i.detail.close()
			i.sel.clear()
		}
	})
}

// deletedText says what was deleted.
func deletedText(es []memory.Entry, n int) string {
	if n == 1 {
		return lang.L("Deleted “{{.Text}}”", map[string]any{"Text": oneLine(es[0].Text, 60)})
	}
	return count("Deleted {{.Count}} memory", n)
}

// setPinned pins or unpins es; one Undo puts back the pins as they were.
func (i *inspector) setPinned(es []memory.Entry, on bool) {
	st := i.store
	if st == nil || len(es) == 0 {
		return
	}
	i.u.write(func() func() {
		var changed []string
		var err error
		for _, e := range es {
			if e.Pinned == on {
				continue
			}
			if _, err = st.Update(e.ID, memory.Change{Pinned: &on}); err != nil {
				break
			}
			changed = append(changed, e.ID)
		}
		return func() {
			if len(changed) > 0 {
				text := count("Pinned {{.Count}} memory", len(changed))
				if !on {
					text = count("Unpinned {{.Count}} memory", len(changed))
				}
				back := !on
				i.offerUndo(text, st, func(st MemoryStore) error {
					for _, id := range changed {
						if _, err := st.Update(id, memory.Change{Pinned: &back}); err != nil {
							return fmt.Errorf("%s: %w", lang.L("Could not undo"), err)
						}
					}
					return nil
				})
			}
			if err != nil {
				i.showErr(err)
			}
		}
	})
}

// offerUndo shows the undo bar for a change of st that fn undoes.
func (i *inspector) offerUndo(text string, st MemoryStore, fn func(MemoryStore) error) {
	i.undoFn, i.undoStore = fn, st
	i.undoLabel.SetText(text)
	i.undoBox.Show()
	i.relayout()
}

// undo undoes the last delete or pin change.
func (i *inspector) undo() {
	fn, st := i.undoFn, i.undoStore
	if fn == nil {
		return
	}
	i.undoBox.Hide()
	i.relayout()
	i.undoFn, i.undoStore = nil, nil
	i.u.write(func() func() {
		err := fn(st)
		return func() {
			if err != nil {
				i.showErr(err)
			}
		}
	})
}
