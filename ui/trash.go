package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// trashBar is the inspector's word on the store's trash, shown while it
// holds something: how many deleted memories Undo (or engramctl memory
// restore) can still bring back, and "Empty trash", which deletes them for
// good after asking.
type trashBar struct {
	i     *inspector
	n     int
	label *widget.Label
	empty *widget.Button
	box   *fyne.Container
}

func newTrashBar(i *inspector) *trashBar {
	b := &trashBar{i: i, label: widget.NewLabel("")}
	b.label.Truncation = fyne.TextTruncateEllipsis
	b.empty = widget.NewButtonWithIcon(lang.L("Empty trash"), theme.DeleteIcon(), b.confirm)
	b.empty.Importance = widget.LowImportance
	b.box = container.NewBorder(nil, nil, nil, b.empty, b.label)
	b.box.Hide()
	return b
}

// show shows the number of memories in the trash, or hides the bar when
// there are none.
func (b *trashBar) show(n int) {
	b.n = n
	if n > 0 {
		b.label.SetText(count("{{.Count}} deleted memory in the trash", n))
	}
	if (n > 0) != b.box.Visible() {
		b.box.Hidden = n == 0
		b.i.relayout()
	}
}

// confirm asks before emptying the trash.
func (b *trashBar) confirm() {
	if b.i.u.w == nil {
		return
	}
	dialog.ShowConfirm(lang.L("Empty trash"),
		count("Delete the {{.Count}} memory in the trash for good? Undo can no longer bring it back.", b.n),
		func(ok bool) {
			if ok {
				b.emptyTrash()
			}
		}, b.i.u.w)
}

// emptyTrash empties the trash of the store shown; the undo of a delete
// goes with it.
func (b *trashBar) emptyTrash() {
	st := b.i.store
	if st == nil {
		return
	}
	b.i.u.write(func() func() {
		_, err := st.EmptyTrash()
		return func() {
			if err != nil {
				b.i.showErr(err)
			}
			if b.i.undoStore == st {
				b.i.undoBox.Hide()
				b.i.undoFn, b.i.undoStore = nil, nil
			}
			b.i.reload()
		}
	})
}

// trashCount is the number of memories in st's trash (0 when it cannot be
// read: the bar is only a convenience).
func trashCount(st MemoryStore) int {
	items, err := st.Trash()
	if err != nil {
		return 0
	}
	return len(items)
}
