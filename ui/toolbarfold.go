package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// foldLayout lays the toolbar's row out as a border: the chat's controls
// (project, AGENTS.md, Auto-recall) at the start, the capture mode after
// them, the model, Memories and settings at the end. When the row is too
// narrow for all of them, the chat's controls and the capture mode fold
// into the ⋯ menu, which takes their place, instead of being drawn under
// the model. Its objects are those four parts in the order Tab visits
// them: ⋯, start, capture, end.
type foldLayout struct{ t *toolbar }

// MinSize is the folded row's: the ⋯ menu and the end.
func (l *foldLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(objs[0].MinSize().Width+theme.Padding()+objs[3].MinSize().Width, h)
}

// Layout folds the row or not, as size allows, and places its parts.
func (l *foldLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	more, start, capture, end := objs[0], objs[1], objs[2], objs[3]
	pad := theme.Padding()
	full := start.MinSize().Width + pad + end.MinSize().Width
	if l.t.hasCapture {
		full += capture.MinSize().Width + pad
	}
	fold := size.Width < full
	setVisible(start, !fold)
	setVisible(capture, !fold && l.t.hasCapture)
	setVisible(more, fold)
	if fold {
		start = more
	}
	sw, ew := start.MinSize().Width, end.MinSize().Width
	start.Move(fyne.NewPos(0, 0))
	start.Resize(fyne.NewSize(sw, size.Height))
	end.Move(fyne.NewPos(size.Width-ew, 0))
	end.Resize(fyne.NewSize(ew, size.Height))
	capture.Move(fyne.NewPos(sw+pad, 0))
	capture.Resize(fyne.NewSize(max(0, size.Width-ew-pad-(sw+pad)), size.Height))
}

// newMoreButton is the ⋯ button of the folded toolbar.
func (t *toolbar) newMoreButton() *widget.Button {
	b := widget.NewButtonWithIcon("", theme.MoreHorizontalIcon(), nil)
	b.Importance = widget.LowImportance
	b.OnTapped = func() {
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b)
		widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", t.moreItems()...), t.u.w.Canvas(),
			pos.Add(fyne.NewPos(0, b.Size().Height)))
	}
	return b
}

// moreItems are the folded controls, as menu items: the project (its
// menu), AGENTS.md, Auto-recall and the capture mode (its menu).
func (t *toolbar) moreItems() []*fyne.MenuItem {
	project := fyne.NewMenuItem(t.project.Text, nil)
	project.Icon = theme.FolderIcon()
	if items := t.projectItems(); items != nil {
		project.ChildMenu = fyne.NewMenu("", items...)
	} else {
		project.Disabled = true
	}
	agents := fyne.NewMenuItem(t.agents.Text, t.openInstructions)
	agents.Icon = theme.DocumentIcon()
	recall := fyne.NewMenuItem(lang.L("Auto-recall"), func() { t.recall.SetChecked(!t.recall.Checked) })
	recall.Checked = t.recall.Checked
	items := []*fyne.MenuItem{project, agents, recall}
	if capture := t.captureItems(); t.hasCapture && capture != nil {
		c := fyne.NewMenuItem(t.capture.Text, nil)
		c.Icon = t.capture.Icon
		c.ChildMenu = fyne.NewMenu("", capture...)
		items = append(items, c)
	}
	return items
}
