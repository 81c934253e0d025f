package ui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/agent/endpoint"
)

// toolbar is the strip above everything: the chat's project folder and its
// AGENTS.md status, the chat's auto-recall switch and capture mode, the
// model, the inspector toggle and settings.
type toolbar struct {
	u       *UI
	project *widget.Button
	agents  *widget.Button
	recall  *widget.Check
	// capture shows the chat's capture mode and opens a menu to change it;
	// captureIcon is the same, by its icon only, for when the window is too
	// narrow for capture's label. captureBox holds them, hidden when the
	// backend is no captureSetter.
	capture     *widget.Button
	captureIcon *widget.Button
	captureBox  *fyne.Container
	hasCapture  bool           // the backend sets capture modes
	more        *widget.Button // the ⋯ menu of the folded toolbar (toolbarfold.go)
	model       *widget.Select
	memories    *widget.Button
	root        fyne.CanvasObject
	showing     bool // set while the widgets are being filled, to ignore their callbacks
	modelsGen   int
}

func newToolbar(u *UI) *toolbar {
	t := &toolbar{u: u}
	t.project = widget.NewButtonWithIcon(lang.L("No project"), theme.FolderIcon(), t.projectMenu)
	t.project.Importance = widget.LowImportance
	t.agents = widget.NewButtonWithIcon("AGENTS.md –", theme.DocumentIcon(), t.openInstructions)
	t.agents.Importance = widget.LowImportance
	t.recall = widget.NewCheck(lang.L("Auto-recall"), t.recallChanged)
	t.capture = widget.NewButtonWithIcon(chatCaptureLabel(""), captureIcon(""), func() { t.captureMenu(t.capture) })
	t.capture.Importance = widget.LowImportance
	t.captureIcon = widget.NewButtonWithIcon("", captureIcon(""), func() { t.captureMenu(t.captureIcon) })
	t.captureIcon.Importance = widget.LowImportance
	t.captureBox = container.New(squeezeLayout{}, t.capture, t.captureIcon)
	_, t.hasCapture = u.b.(captureSetter)
	if !t.hasCapture {
		t.captureBox.Hide()
	}
	t.model = widget.NewSelect(nil, t.modelChanged)
	t.model.PlaceHolder = lang.L("Choose a model")
	t.memories = widget.NewButtonWithIcon(lang.L("Memories"), theme.StorageIcon(), u.toggleInspector)
	t.memories.Importance = widget.HighImportance
	settings := widget.NewButtonWithIcon("", theme.SettingsIcon(), u.openSettings)
	settings.Importance = widget.LowImportance

	left := container.NewHBox(t.project, t.agents, widget.NewSeparator(), t.recall)
	right := container.NewHBox(container.NewGridWrap(fyne.NewSize(140, t.model.MinSize().Height), t.model),
		t.memories, settings)
	t.more = t.newMoreButton()
	t.more.Hide()
	t.root = container.NewVBox(container.NewPadded(container.New(&foldLayout{t: t}, t.more, left, t.captureBox, right)),
		widget.NewSeparator())
	return t
}

// showChat fills the per-chat controls from c.
func (t *toolbar) showChat(c ChatInfo) {
	t.showing = true
	t.recall.SetChecked(c.AutoRecall)
	t.showing = false
	t.showCapture(c.Capture)
	if c.Project == "" {
		t.project.SetText(lang.L("No project"))
	} else {
		t.project.SetText(projectLabel(c.Project, t.u.home))
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
			t.modelsLoaded(models)
		}
	})
}

// modelsLoaded offers the endpoint's models. When it does not list the
// configured model (none chosen yet, or one of another endpoint), its
// default model is chosen and saved, unless the model comes from the
// environment.
func (t *toolbar) modelsLoaded(models []string) {
	u := t.u
	cur := u.cfg.Model
	if len(models) > 0 && !slices.Contains(models, cur) && u.b.ConfigSources().Model == "" {
		c := u.cfg
		c.Model = endpoint.DefaultModel(models)
		t.showing = true
		t.model.SetOptions(models)
		t.showing = false
		u.saveConfig(c)
		return
	}
	if cur != "" && !slices.Contains(models, cur) {
		models = append([]string{cur}, models...)
	}
	t.showing = true
	t.model.SetOptions(models)
	t.model.SetSelected(cur)
	t.showing = false
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
			u.showError(lang.L("Could not change auto-recall"), err)
		}
	})
}

// captureSetter is the part of the agent that sets a chat's own capture
// mode; the toolbar offers one only on a backend that has it.
type captureSetter interface {
	SetCapture(chatID string, mode agent.CaptureMode) error
}

// showCapture shows a chat's own capture mode m.
func (t *toolbar) showCapture(m agent.CaptureMode) {
	t.capture.SetText(chatCaptureLabel(m))
	t.capture.SetIcon(captureIcon(m))
	t.captureIcon.SetIcon(captureIcon(m))
	t.captureBox.Refresh()
}

// captureMenu offers the capture modes for the current chat under button b.
func (t *toolbar) captureMenu(b *widget.Button) {
	items := t.captureItems()
	if items == nil {
		return
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b)
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", items...), t.u.w.Canvas(), pos.Add(fyne.NewPos(0, b.Size().Height)))
}

// captureItems are the capture menu's items for the current chat: follow
// the setting (named with the mode it sets now), or one of the modes.
func (t *toolbar) captureItems() []*fyne.MenuItem {
	u := t.u
	s := u.currentSession()
	if s == nil {
		return nil
	}
	setting := lang.L("As in Settings: {{.Mode}}", map[string]any{"Mode": captureName(u.cfg.CaptureSetting())})
	items := []*fyne.MenuItem{fyne.NewMenuItem(setting, func() { t.captureChanged("") }), fyne.NewMenuItemSeparator()}
	items[0].Checked = s.info.Capture == ""
	for _, m := range captureModes {
		item := fyne.NewMenuItem(captureName(m), func() { t.captureChanged(m) })
		item.Checked = s.info.Capture == m
		items = append(items, item)
	}
	return items
}

// captureChanged sets the capture mode of the current chat only ("" follows
// the setting): shown at once, undone if its save fails and no later change
// was made.
func (t *toolbar) captureChanged(m agent.CaptureMode) {
	u := t.u
	cs, ok := u.b.(captureSetter)
	s := u.currentSession()
	if !ok || s == nil || s.info.Capture == m {
		return
	}
	id := s.info.ID
	s.capture.start(s.info.Capture)
	u.changeInfo(id, func(c *ChatInfo) { c.Capture = m })
	t.showCapture(m)
	u.write(func() func() {
		err := cs.SetCapture(id, m)
		return func() {
			back, undo := s.capture.end(m, err)
			if err == nil {
				return
			}
			if undo {
				info := u.changeInfo(id, func(c *ChatInfo) { c.Capture = back })
				if u.current == id {
					t.showCapture(info.Capture)
				}
			}
			u.showError(lang.L("Could not change how memories are saved"), err)
		}
	})
}

// squeezeLayout shows the first of its two objects, at its own size, when
// it fits, else the second (a narrower form of the same control); its
// minimum is the second's.
type squeezeLayout struct{}

// MinSize is the narrower form's.
func (squeezeLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[1].MinSize() }

// Layout shows the form that fits in size, left-aligned.
func (squeezeLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	wide, narrow := objs[0], objs[1]
	fits := wide.MinSize().Width <= size.Width
	setVisible(wide, fits)
	setVisible(narrow, !fits)
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(fyne.NewSize(min(o.MinSize().Width, size.Width), size.Height))
	}
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
		t.agents.SetText(lang.L("AGENTS.md unreadable"))
		t.agents.Importance = widget.WarningImportance
	case f.Found && f.Truncated:
		t.agents.SetText(lang.L("AGENTS.md ✓ (cut: over 64 KiB)"))
		t.agents.Importance = widget.WarningImportance
	case f.Found:
		t.agents.SetText("AGENTS.md ✓")
		t.agents.Importance = widget.LowImportance
	default:
		t.agents.SetText("AGENTS.md –")
		t.agents.Importance = widget.LowImportance
	}
	t.agents.Refresh()
}

// openInstructions edits the AGENTS.md the indicator shows: the project's
// when one is pinned, else the global one.
func (t *toolbar) openInstructions() {
	dir := ""
	if s := t.u.currentSession(); s != nil {
		dir = s.info.Project
	}
	t.u.editInstructions(dir)
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
	items := []*fyne.MenuItem{fyne.NewMenuItem(lang.L("Choose folder…"), t.chooseFolder),
		fyne.NewMenuItem(lang.L("Type a folder path…"), t.typeFolder)}
	if len(u.recent) > 0 {
		items = append(items, fyne.NewMenuItemSeparator())
		for _, dir := range u.recent {
			item := fyne.NewMenuItem(shortPath(dir, u.home), func() { u.pinProject(dir) })
			item.Checked = dir == s.info.Project
			items = append(items, item)
		}
	}
	clear := fyne.NewMenuItem(lang.L("Clear project"), func() { u.pinProject("") })
	clear.Disabled = s.info.Project == ""
	return append(items, fyne.NewMenuItemSeparator(), clear)
}

// chooseFolder opens the folder dialog.
func (t *toolbar) chooseFolder() {
	u := t.u
	d := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil {
			u.showError(lang.L("Could not open the folder"), err)
			return
		}
		if l != nil {
			u.pinProject(l.Path())
		}
	}, u.w)
	d.Resize(fyne.NewSize(min(760, u.w.Canvas().Size().Width-20), 520))
	u.showDialog(d)
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
				u.showError(lang.L("Could not pin the project"), err)
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

// The project button shows a folder in full up to maxPathRunes, else as
// …/name with the name cut at maxNameRunes, so the toolbar stays narrow.
const (
	maxPathRunes = 20
	maxNameRunes = 12
)

// projectLabel is the project button's text for folder dir.
func projectLabel(dir, home string) string {
	s := shortPath(dir, home)
	if utf8.RuneCountInString(s) <= maxPathRunes {
		return s
	}
	name := []rune(baseName(dir))
	if len(name) > maxNameRunes {
		name = append(name[:maxNameRunes-1], '…')
	}
	return "…" + string(filepath.Separator) + string(name)
}

// baseName is a folder's last element.
func baseName(dir string) string { return filepath.Base(dir) }
