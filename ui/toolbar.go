package ui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
)

// toolbar is the strip above everything: the chat's project folder and its
// AGENTS.md status, the chat's auto-recall switch, the model, the inspector
// toggle and settings.
type toolbar struct {
	u         *UI
	project   *widget.Button
	agents    *caption
	recall    *widget.Check
	model     *widget.Select
	memories  *widget.Button
	root      fyne.CanvasObject
	showing   bool // set while the widgets are being filled, to ignore their callbacks
	modelsGen int
}

func newToolbar(u *UI) *toolbar {
	t := &toolbar{u: u}
	t.project = widget.NewButtonWithIcon("No project", theme.FolderIcon(), t.projectMenu)
	t.project.Importance = widget.LowImportance
	t.agents = newCaption("AGENTS.md –", theme.SizeNameText, false)
	t.agents.Wrapping = fyne.TextWrapOff
	t.recall = widget.NewCheck("Auto-recall", t.recallChanged)
	t.model = widget.NewSelect(nil, t.modelChanged)
	t.model.PlaceHolder = "Choose a model"
	t.memories = widget.NewButtonWithIcon("Memories", theme.StorageIcon(), u.toggleInspector)
	t.memories.Importance = widget.HighImportance
	settings := widget.NewButtonWithIcon("", theme.SettingsIcon(), u.openSettings)
	settings.Importance = widget.LowImportance

	left := container.NewHBox(t.project, t.agents, widget.NewSeparator(), t.recall)
	right := container.NewHBox(widget.NewLabel("Model"), container.NewGridWrap(fyne.NewSize(220, t.model.MinSize().Height), t.model),
		t.memories, settings)
	t.root = container.NewVBox(container.NewPadded(container.NewBorder(nil, nil, left, right)), widget.NewSeparator())
	return t
}

// showChat fills the per-chat controls from c.
func (t *toolbar) showChat(c ChatInfo) {
	t.showing = true
	t.recall.SetChecked(c.AutoRecall)
	t.showing = false
	if c.Project == "" {
		t.project.SetText("No project")
	} else {
		t.project.SetText(shortPath(c.Project, t.u.home))
	}
	t.loadInstructions()
}

// setConfig shows the configured model.
func (t *toolbar) setConfig(c agent.Config) {
	t.showing = true
	defer func() { t.showing = false }()
	if c.Model != "" && !slices.Contains(t.model.Options, c.Model) {
		t.model.SetOptions(append([]string{c.Model}, t.model.Options...))
	}
	t.model.SetSelected(c.Model)
}

// loadModels asks the endpoint for its models, in the background.
func (t *toolbar) loadModels() {
	u := t.u
	if u.cfg.BaseURL == "" {
		return
	}
	t.modelsGen++
	gen := t.modelsGen
	u.bg(func() func() {
		ctx, cancel := context.WithTimeout(u.ctx, 5*time.Second)
		defer cancel()
		models, err := u.b.Models(ctx)
		return func() {
			if err != nil || gen != t.modelsGen {
				return
			}
			cur := u.cfg.Model
			if cur != "" && !slices.Contains(models, cur) {
				models = append([]string{cur}, models...)
			}
			t.showing = true
			t.model.SetOptions(models)
			t.model.SetSelected(cur)
			t.showing = false
		}
	})
}

// modelChanged saves a model picked in the toolbar.
func (t *toolbar) modelChanged(m string) {
	u := t.u
	if t.showing || m == u.cfg.Model {
		return
	}
	c := u.cfg
	c.Model = m
	u.saveConfig(c)
}

// recallChanged switches auto-recall for the current chat only.
func (t *toolbar) recallChanged(on bool) {
	u := t.u
	s := u.currentSession()
	if t.showing || s == nil || s.info.AutoRecall == on {
		return
	}
	id := s.info.ID
	s.recall.start(s.info.AutoRecall)
	u.changeInfo(id, func(c *ChatInfo) { c.AutoRecall = on })
	u.write(func() func() {
		err := u.b.SetAutoRecall(id, on)
		return func() {
			back, undo := s.recall.end(on, err)
			if err == nil {
				return
			}
			if undo {
				info := u.changeInfo(id, func(c *ChatInfo) { c.AutoRecall = back })
				if u.current == id {
					t.showChat(info)
				}
			}
			u.showError("Could not change auto-recall", err)
		}
	})
}

// loadInstructions refreshes the AGENTS.md indicator for the current chat.
func (t *toolbar) loadInstructions() {
	u := t.u
	s := u.currentSession()
	dir := ""
	if s != nil {
		dir = s.info.Project
	}
	u.bg(func() func() {
		info := u.b.Instructions(dir)
		return func() {
			if cur := u.currentSession(); cur != nil && cur.info.Project != dir {
				return
			}
			t.setInstructions(dir, info)
		}
	})
}

// setInstructions shows whether AGENTS.md was found: for the project when
// one is pinned, otherwise the global one.
func (t *toolbar) setInstructions(dir string, info InstructionsInfo) {
	f := info.Global
	if dir != "" {
		f = info.Project
	}
	switch {
	case f.Err != nil:
		t.agents.set("AGENTS.md unreadable", theme.ColorNameWarning)
	case f.Found && f.Truncated:
		t.agents.set("AGENTS.md ✓ (cut: over 64 KiB)", theme.ColorNameWarning)
	case f.Found:
		t.agents.set("AGENTS.md ✓", theme.ColorNameSuccess)
	default:
		t.agents.set("AGENTS.md –", theme.ColorNamePlaceHolder)
	}
}

// projectMenu offers a folder dialog, the recent folders and Clear.
func (t *toolbar) projectMenu() {
	items := t.projectItems()
	if items == nil {
		return
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(t.project)
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", items...), t.u.w.Canvas(), pos.Add(fyne.NewPos(0, t.project.Size().Height)))
}

// projectItems are the project menu's items for the current chat.
func (t *toolbar) projectItems() []*fyne.MenuItem {
	u := t.u
	s := u.currentSession()
	if s == nil {
		return nil
	}
	items := []*fyne.MenuItem{fyne.NewMenuItem("Choose folder…", t.chooseFolder)}
	if len(u.recent) > 0 {
		items = append(items, fyne.NewMenuItemSeparator())
		for _, dir := range u.recent {
			item := fyne.NewMenuItem(shortPath(dir, u.home), func() { u.pinProject(dir) })
			item.Checked = dir == s.info.Project
			items = append(items, item)
		}
	}
	clear := fyne.NewMenuItem("Clear project", func() { u.pinProject("") })
	clear.Disabled = s.info.Project == ""
	return append(items, fyne.NewMenuItemSeparator(), clear)
}

// chooseFolder opens the folder dialog.
func (t *toolbar) chooseFolder() {
	u := t.u
	d := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil {
			u.showError("Could not open the folder", err)
			return
		}
		if l != nil {
			u.pinProject(l.Path())
		}
	}, u.w)
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

// pinProject pins dir ("" clears) to the current chat.
func (u *UI) pinProject(dir string) {
	s := u.currentSession()
	if s == nil {
		return
	}
	id := s.info.ID
	u.write(func() func() {
		err := u.b.SetProject(id, dir)
		recent := u.b.RecentProjects()
		return func() {
			if err != nil {
				u.showError("Could not pin the project", err)
				return
			}
			u.recent = recent
			if dir != "" && !slices.Contains(u.recent, dir) {
				u.recent = append([]string{dir}, u.recent...)
			}
			info := u.changeInfo(id, func(c *ChatInfo) { c.Project = dir })
			if u.current == id {
				u.bar.showChat(info)
				u.insp.setProject(dir)
				if dir != "" {
					u.insp.setScope(agent.ScopeProject)
				}
			}
		}
	})
}

// inspectorShown updates the Memories button.
func (t *toolbar) inspectorShown(open bool) {
	if open {
		t.memories.Importance = widget.HighImportance
	} else {
		t.memories.Importance = widget.MediumImportance
	}
	t.memories.Refresh()
}

// shortPath shows a folder with the home folder as ~.
func shortPath(dir, home string) string {
	if home != "" && home != "/" {
		if dir == home {
			return "~"
		}
		if strings.HasPrefix(dir, home+string(filepath.Separator)) {
			return "~" + dir[len(home):]
		}
	}
	return dir
}

// baseName is a folder's last element.
func baseName(dir string) string { return filepath.Base(dir) }
