package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/memory"
)

// memDetail shows one memory in full in place of the list: its text, kind,
// source, dates and use count, and its history (the versions it replaced,
// oldest first), with Edit, Pin and Delete.
type memDetail struct {
	i       *inspector
	e       memory.Entry
	shown   bool
	badge   *badge
	text    *widget.Label
	facts   *widget.Label
	history *fyne.Container
	histHdr *widget.Label
	pin     *widget.Button
	root    *fyne.Container
}

func newMemDetail(i *inspector) *memDetail {
	d := &memDetail{i: i, badge: newBadge()}
	d.text = widget.NewLabel("")
	d.text.Wrapping = fyne.TextWrapWord
	d.text.Selectable = true
	d.facts = widget.NewLabel("")
	d.facts.Wrapping = fyne.TextWrapWord
	d.facts.SizeName = theme.SizeNameCaptionText
	d.histHdr = widget.NewLabelWithStyle(lang.L("History"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.history = container.NewVBox()
	back := widget.NewButtonWithIcon(lang.L("Back"), theme.NavigateBackIcon(), d.close)
	back.Importance = widget.LowImportance
	edit := widget.NewButtonWithIcon(lang.L("Edit"), theme.DocumentCreateIcon(), func() {
		e := d.e
		i.ed.open(&e)
	})
	d.pin = widget.NewButton(lang.L("Pin"), func() { i.setPinned([]memory.Entry{d.e}, !d.e.Pinned) })
	del := widget.NewButtonWithIcon(lang.L("Delete"), theme.DeleteIcon(), func() { i.remove([]memory.Entry{d.e}) })
	del.Importance = widget.DangerImportance
	body := container.NewVBox(container.NewHBox(d.badge.root), d.text, d.facts, d.histHdr, d.history)
	d.root = container.NewBorder(container.NewHBox(back), container.NewHBox(edit, d.pin, del), nil, nil,
		container.NewVScroll(body))
	d.root.Hide()
	return d
}

// open shows e and loads its history.
func (d *memDetail) open(e memory.Entry) {
	d.e, d.shown = e, true
	d.show(e, nil)
	d.root.Show()
	d.i.list.Hide()
	d.i.relayout()
	d.load()
}

// load reads the history of the memory shown, off the UI goroutine.
func (d *memDetail) load() {
	st, id := d.i.store, d.e.ID
	if st == nil {
		return
	}
	d.i.u.bg(func() func() {
		chain := st.History(id)
		return func() {
			if d.shown && d.e.ID == id {
				d.show(d.e, chain)
			}
		}
	})
}

// refresh shows the memory again after the list reloaded: its new version
// (an edit replaces it), or closes when it is gone.
func (d *memDetail) refresh() {
	if !d.shown {
		return
	}
	st, id := d.i.store, d.e.ID
	d.i.u.bg(func() func() {
		chain := st.History(id)
		return func() {
			if !d.shown || d.e.ID != id {
				return
			}
			var cur *memory.Entry
			for k := range chain {
				if chain[k].Live() {
					cur = &chain[k]
				}
			}
			if cur == nil {
				d.close()
				return
			}
			d.e = *cur
			d.show(*cur, chain)
		}
	})
}

// show fills the view with e and its history chain (History's order).
func (d *memDetail) show(e memory.Entry, chain []memory.Entry) {
	d.badge.set(e.Kind)
	d.text.SetText(e.Text)
	d.facts.SetText(detailFacts(e, time.Now()))
	if e.Pinned {
		d.pin.SetText(lang.L("Unpin"))
	} else {
		d.pin.SetText(lang.L("Pin"))
	}
	var objs []fyne.CanvasObject
	for _, h := range chain {
		if h.ID == e.ID {
			continue
		}
		l := widget.NewLabel(historyLine(h))
		l.Wrapping = fyne.TextWrapWord
		objs = append(objs, l)
		if h.Deleted.IsZero() && h.Text != "" && h.Text != e.Text && e.Live() {
			text := h.Text
			restore := widget.NewButtonWithIcon(lang.L("Restore this text"), theme.ContentUndoIcon(), func() { d.restore(text) })
			restore.Importance = widget.LowImportance
			objs = append(objs, container.NewHBox(restore))
		}
	}
	d.history.Objects = objs
	d.history.Refresh()
	if len(objs) == 0 {
		d.histHdr.Hide()
	} else {
		d.histHdr.Show()
	}
}

// restore makes an earlier text the memory's text again: a person's edit,
// so the text it replaces stays in the history too.
func (d *memDetail) restore(text string) {
	st, id := d.i.store, d.e.ID
	if st == nil {
		return
	}
	d.i.u.write(func() func() {
		_, err := st.Update(id, memory.Change{Text: &text})
		return func() {
			if err != nil {
				d.i.showErr(err)
			}
		}
	})
}

// detailFacts are the source, dates and uses of e, one per line.
func detailFacts(e memory.Entry, now time.Time) string {
	s := lang.L("Source: {{.Source}}", map[string]any{"Source": sourceName(e.Source)})
	if e.Pinned {
		s += " · " + lang.L("pinned")
	}
	s += "\n" + lang.L("Created {{.Date}}", map[string]any{"Date": stamp(e.Created)})
	if !e.Updated.Equal(e.Created) {
		s += "\n" + lang.L("Changed {{.Date}}", map[string]any{"Date": stamp(e.Updated)})
	}
	if e.LastUsed.IsZero() {
		s += "\n" + lang.L("never used")
	} else {
		s += "\n" + count("Used {{.Count}} time, last {{.When}}", e.Uses, map[string]any{"When": since(e.LastUsed, now)})
	}
	return s
}

// historyLine is one earlier (or later) version of a memory.
func historyLine(e memory.Entry) string {
	what := lang.L("replaced {{.Date}}", map[string]any{"Date": stamp(e.Updated)})
	if !e.Deleted.IsZero() {
		what = lang.L("deleted {{.Date}}", map[string]any{"Date": stamp(e.Deleted)})
	} else if e.Live() {
		what = lang.L("current")
	}
	return kindName(e.Kind) + " · " + what + "\n" + e.Text
}

// close goes back to the list.
func (d *memDetail) close() {
	if !d.shown {
		return
	}
	d.shown = false
	d.root.Hide()
	d.i.list.Show()
	d.i.relayout()
}
