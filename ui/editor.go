package ui

import (
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/memory"
)

// memEditor edits one memory (or a new one): text, kind, pinned.
type memEditor struct {
	i      *inspector
	id     string // "" for a new memory
	orig   memory.Entry
	title  *widget.Label
	text   *shortcutEntry
	kind   *widget.Select
	pinned *widget.Check
	msg    *widget.Label
	saveB  *widget.Button
	del    *widget.Button
	root   *fyne.Container
	// confirmed is a text the person chose to keep although it looks
	// like a secret.
	confirmed string
}

func newMemEditor(i *inspector) *memEditor {
	ed := &memEditor{i: i}
	ed.title = widget.NewLabelWithStyle(lang.L("New memory"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	ed.text = newShortcutEntry()
	ed.text.MultiLine = true
	ed.text.onShortcut = i.u.shortcut
	ed.text.Wrapping = fyne.TextWrapWord
	ed.text.SetMinRowsVisible(3)
	ed.text.SetPlaceHolder(lang.L("What should Engram remember?"))
	kinds := make([]string, len(memory.Kinds))
	for k, kd := range memory.Kinds {
		kinds[k] = kindName(kd)
	}
	ed.kind = widget.NewSelect(kinds, nil)
	ed.pinned = widget.NewCheck(lang.L("Pinned"), nil)
	ed.msg = widget.NewLabel("")
	ed.msg.Importance = widget.DangerImportance
	ed.msg.Wrapping = fyne.TextWrapWord
	ed.msg.Hide()
	ed.saveB = widget.NewButtonWithIcon(lang.L("Save"), theme.DocumentSaveIcon(), ed.save)
	ed.saveB.Importance = widget.HighImportance
	ed.del = widget.NewButtonWithIcon(lang.L("Delete"), theme.DeleteIcon(), func() { i.remove([]memory.Entry{ed.orig}) })
	ed.del.Importance = widget.DangerImportance
	cancel := widget.NewButton(lang.L("Cancel"), ed.close)
	ed.root = container.NewVBox(widget.NewSeparator(), ed.title, ed.text,
		container.NewHBox(widget.NewLabel(lang.L("Kind")), ed.kind, ed.pinned), ed.msg,
		container.NewHBox(ed.saveB, ed.del, layout.NewSpacer(), cancel))
	ed.root.Hide()
	return ed
}

// open edits e, or a new memory when e is nil.
func (ed *memEditor) open(e *memory.Entry) {
	ed.msg.Hide()
	if e == nil {
		ed.id, ed.orig = "", memory.Entry{}
		ed.title.SetText(lang.L("New memory"))
		ed.text.SetText("")
		ed.kind.SetSelected(kindName(memory.KindFact))
		ed.pinned.SetChecked(false)
		ed.del.Hide()
	} else {
		ed.id, ed.orig = e.ID, *e
		ed.title.SetText(lang.L("Edit memory · {{.Source}} · created {{.Date}}",
			map[string]any{"Source": sourceName(e.Source), "Date": day(e.Created)}))
		ed.text.SetText(e.Text)
		ed.kind.SetSelected(kindName(e.Kind))
		ed.pinned.SetChecked(e.Pinned)
		ed.del.Show()
	}
	ed.root.Show()
	ed.i.relayout()
	ed.i.u.w.Canvas().Focus(ed.text)
}

// close hides the editor.
func (ed *memEditor) close() {
	if ed.root.Visible() {
		ed.root.Hide()
		ed.i.relayout()
	}
	ed.id = ""
	ed.i.list.UnselectAll()
}

// fail shows why saving or deleting failed.
func (ed *memEditor) fail(err error) {
	msg := err.Error()
	switch {
	case errors.Is(err, memory.ErrEmpty):
		msg = lang.L("Write something to remember first.")
	case errors.Is(err, memory.ErrTooLong):
		msg = lang.L("That is too long for one memory; keep it to a sentence or two.")
	case errors.Is(err, memory.ErrFull):
		msg = lang.L("Memory is full and every memory is pinned: unpin or delete some first.")
	}
	ed.msg.SetText(msg)
	ed.msg.Show()
	ed.i.relayout()
}

// save adds or updates the memory off the UI goroutine.
func (ed *memEditor) save() {
	i := ed.i
	st := i.store
	if st == nil {
		return
	}
	text := strings.TrimSpace(ed.text.Text)
	if what, ok := memory.Secret(text); ok && ed.confirmed != text {
		confirmSecret(i.u.w, what, func() { ed.confirmed = text; ed.save() })
		return
	}
	kind := kindOf(ed.kind.Selected)
	pinned := ed.pinned.Checked
	id := ed.id
	i.u.write(func() func() {
		var err error
		if id == "" {
			_, _, err = st.Add(memory.Entry{Kind: kind, Text: text, Source: memory.SourceUser, Pinned: pinned})
		} else {
			_, err = st.Update(id, memory.Change{Text: &text, Kind: &kind, Pinned: &pinned})
			if errors.Is(err, memory.ErrNotFound) { // deleted elsewhere meanwhile: keep the text
				_, _, err = st.Add(memory.Entry{Kind: kind, Text: text, Source: memory.SourceUser, Pinned: pinned})
			}
		}
		return func() { // the list reloads on the store's change event
			i.lastErr = err
			i.showFull()
			if err != nil {
				ed.fail(err)
				return
			}
			if ed.id == id {
				ed.close()
			}
		}
	})
}
