package ui

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/memory"
)

// memStore is what the inspector needs of a memory store; *memory.Store
// satisfies it. Its methods are called off the UI goroutine, the writing
// ones through UI.write.
type memStore interface {
	Path() string
	Err() error
	List() []memory.Entry
	Add(e memory.Entry) (memory.Entry, bool, error)
	Update(id string, c memory.Change) (memory.Entry, error)
	Remove(id string) error
	Restore(id string) error
	Recall(query string, history []string, opts memory.RecallOptions) []memory.Hit
	Repair() (memory.RepairReport, error)
}

// searchLimit is how many ranked memories a search shows.
const searchLimit = 200

// memRow is one row of the inspector: an entry and, for a search, its rank.
type memRow struct {
	e     memory.Entry
	score float64
	terms []string
}

// inspector is the memory column: Global/Project tabs, a search that ranks
// as you type, a virtualised list, an editor, undo for deletes and the
// store's error state.
type inspector struct {
	u       *UI
	scope   agent.Scope
	project string
	stores  map[string]memStore
	store   memStore
	rows    []memRow
	hits    map[string]agent.RecalledHit
	gen     int

	global, proj *widget.Button
	search       *shortcutEntry
	add          *widget.Button
	count        *caption
	list         *widget.List
	banner       *widget.Label
	repair       *widget.Button // shown while the file does not parse
	bannerBox    *fyne.Container
	undoLabel    *widget.Label
	undoBox      *fyne.Container
	undoID       string
	undoStore    memStore
	noProject    fyne.CanvasObject
	empty        *caption
	ed           *memEditor
	body         *fyne.Container
	root         fyne.CanvasObject
}

func newInspector(u *UI) *inspector {
	i := &inspector{u: u, scope: agent.ScopeGlobal, stores: map[string]memStore{}}
	i.global = widget.NewButton("Global", func() { i.setScope(agent.ScopeGlobal) })
	i.proj = widget.NewButton("Project", func() { i.setScope(agent.ScopeProject) })
	tabs := container.NewGridWithColumns(2, i.global, i.proj)

	i.search = newShortcutEntry()
	i.search.SetPlaceHolder("Search memories…")
	i.search.ActionItem = widget.NewIcon(theme.SearchIcon())
	i.search.OnChanged = func(string) { i.reload() }
	i.search.onShortcut = u.shortcut
	i.search.onEscape = func() {
		if i.search.Text != "" {
			i.search.SetText("")
			return
		}
		u.stop()
	}
	i.add = widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), func() { i.ed.open(nil) })
	i.count = captionLabel("")
	i.count.Wrapping = fyne.TextWrapOff

	i.list = widget.NewList(func() int { return len(i.rows) }, i.newRow, i.updateRow)
	i.list.OnSelected = func(id widget.ListItemID) {
		if id < len(i.rows) {
			e := i.rows[id].e
			i.ed.open(&e)
		}
	}

	i.banner = widget.NewLabel("")
	i.banner.Wrapping = fyne.TextWrapWord
	i.banner.Importance = widget.DangerImportance
	i.repair = widget.NewButton("Repair", i.repairFile)
	i.repair.Hide()
	i.bannerBox = container.NewBorder(nil, i.repair, widget.NewIcon(theme.WarningIcon()), nil, i.banner)
	i.bannerBox.Hide()

	i.undoLabel = widget.NewLabel("")
	i.undoLabel.Truncation = fyne.TextTruncateEllipsis
	undo := widget.NewButtonWithIcon("Undo", theme.ContentUndoIcon(), i.undo)
	closeUndo := widget.NewButtonWithIcon("", theme.CancelIcon(), func() {
		i.undoBox.Hide()
		i.relayout()
	})
	closeUndo.Importance = widget.LowImportance
	i.undoBox = container.NewBorder(nil, nil, nil, container.NewHBox(undo, closeUndo), i.undoLabel)
	i.undoBox.Hide()

	pin := widget.NewButtonWithIcon("Pin a project folder…", theme.FolderOpenIcon(), func() { u.bar.chooseFolder() })
	i.noProject = container.NewCenter(container.NewVBox(
		widget.NewLabelWithStyle("No project pinned to this chat", fyne.TextAlignCenter, fyne.TextStyle{Bold: true}),
		captionLabel("A project's memories are kept apart from the global ones."), container.NewCenter(pin)))
	i.noProject.Hide()

	i.ed = newMemEditor(i)
	title := widget.NewLabelWithStyle("Memories", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(
		container.NewBorder(nil, nil, title, i.count),
		tabs,
		container.NewBorder(nil, nil, nil, i.add, i.search),
		i.bannerBox,
	)
	bottom := container.NewVBox(i.undoBox, i.ed.root)
	if u.review != nil {
		bottom.Objects = append([]fyne.CanvasObject{u.review.root}, bottom.Objects...)
	}
	i.empty = captionLabel("")
	i.empty.seg.Style.Alignment = fyne.TextAlignCenter
	i.empty.Hide()
	emptyBox := container.NewVBox(layout.NewSpacer(), i.empty, layout.NewSpacer())
	i.body = container.NewBorder(top, bottom, nil, nil, container.NewStack(i.list, emptyBox, i.noProject))
	i.root = container.NewPadded(i.body)
	i.showTabs()
	return i
}

// newRow is the list's row template: highlight, kind badge, text, details
// and a pin mark.
func (i *inspector) newRow() fyne.CanvasObject {
	hl := canvas.NewRectangle(color.Transparent)
	hl.CornerRadius = 4
	b := newBadge()
	text := widget.NewLabel("memory text")
	text.Truncation = fyne.TextTruncateEllipsis
	meta := captionLabel("source · last used")
	meta.Wrapping = fyne.TextWrapOff
	meta.Truncation = fyne.TextTruncateEllipsis
	pin := widget.NewLabel("📌")
	row := container.NewBorder(nil, nil, b.root, pin, container.New(&tightVBox{}, text, meta))
	r := &rowBox{content: container.NewStack(hl, row), hl: hl, badge: b, text: text, meta: meta, pin: pin}
	r.ExtendBaseWidget(r)
	return r
}

// rowBox is one inspector row, keeping its parts at hand.
type rowBox struct {
	widget.BaseWidget
	content *fyne.Container
	hl      *canvas.Rectangle
	badge   *badge
	text    *widget.Label
	meta    *caption
	pin     *widget.Label
}

// CreateRenderer implements fyne.Widget.
func (r *rowBox) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.content) }

func (i *inspector) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(i.rows) {
		return
	}
	r := o.(*rowBox)
	row := i.rows[id]
	r.badge.set(row.e.Kind)
	r.text.SetText(oneLine(row.e.Text, 300))
	meta := rowMeta(row, time.Now())
	if h, ok := i.recalled(row.e.ID); ok {
		meta = fmt.Sprintf("recalled for this answer · score %.2f · %s", h.Score, meta)
		r.hl.FillColor = highlightColor()
	} else {
		r.hl.FillColor = color.Transparent
	}
	r.hl.Refresh()
	r.meta.SetText(meta)
	if row.e.Pinned {
		r.pin.Show()
	} else {
		r.pin.Hide()
	}
}

func highlightColor() color.Color {
	c := color.NRGBAModel.Convert(theme.Color(theme.ColorNamePrimary)).(color.NRGBA)
	c.A = 0x40
	return c
}

// rowMeta is a row's second line: source, pin, last use, search rank.
func rowMeta(r memRow, now time.Time) string {
	parts := []string{string(r.e.Source)}
	if r.e.Source == "" {
		parts[0] = "user"
	}
	if r.e.Pinned {
		parts = append(parts, "pinned")
	}
	if r.e.LastUsed.IsZero() {
		parts = append(parts, "never used")
	} else {
		parts = append(parts, "used "+ago(r.e.LastUsed, now))
	}
	if r.score > 0 {
		s := fmt.Sprintf("score %.2f", r.score)
		if len(r.terms) > 0 {
			s += " (" + strings.Join(r.terms, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

// relayout lays the column out again after a part was shown or hidden.
func (i *inspector) relayout() {
	if i.body != nil {
		i.body.Refresh()
	}
}

// setScope switches between the global and the project memories.
func (i *inspector) setScope(s agent.Scope) {
	i.scope = s
	i.showTabs()
	i.open()
}

// setProject follows the current chat's project folder.
func (i *inspector) setProject(dir string) {
	if dir == i.project {
		return
	}
	i.project = dir
	if i.scope == agent.ScopeProject {
		i.open()
	}
	i.showTabs()
}

func (i *inspector) showTabs() {
	i.global.Importance, i.proj.Importance = widget.LowImportance, widget.LowImportance
	if i.scope == agent.ScopeGlobal {
		i.global.Importance = widget.HighImportance
	} else {
		i.proj.Importance = widget.HighImportance
	}
	i.proj.SetText("Project")
	if i.project != "" {
		i.proj.SetText("Project: " + baseName(i.project))
	}
	i.global.Refresh()
	i.proj.Refresh()
}

func storeKey(s agent.Scope, dir string) string { return string(s) + "\x00" + dir }

// open shows the store of the current scope, opening it if needed.
func (i *inspector) open() {
	i.ed.close()
	i.list.UnselectAll()
	if i.scope == agent.ScopeProject && i.project == "" {
		i.store = nil
		i.rows = nil
		i.empty.Hide()
		i.list.Refresh()
		i.count.SetText("")
		i.bannerBox.Hide()
		i.noProject.Show()
		return
	}
	i.noProject.Hide()
	scope := i.scope
	dir := i.dirOf(scope)
	key := storeKey(scope, dir)
	if st, ok := i.stores[key]; ok {
		i.store = st
		i.reload()
		return
	}
	i.store = nil
	i.rows = nil
	i.list.Refresh()
	i.u.bg(func() func() {
		ms, err := i.u.b.Memory(scope, dir)
		return func() {
			if err == nil && ms == nil {
				err = errors.New("no store")
			}
			if err != nil {
				i.showErr(fmt.Errorf("could not open the %s memories: %w", scope, err))
				return
			}
			i.stores[key] = ms
			if storeKey(i.scope, i.dirOf(i.scope)) == key {
				i.store = ms
				i.reload()
			}
		}
	})
}

// dirOf is the project folder of scope s's store ("" for global).
func (i *inspector) dirOf(s agent.Scope) string {
	if s == agent.ScopeProject {
		return i.project
	}
	return ""
}

// reload lists or searches the store again, off the UI goroutine; only the
// latest request's result is shown. The editor is left alone.
func (i *inspector) reload() {
	st := i.store
	if st == nil {
		return
	}
	i.gen++
	gen, q := i.gen, strings.TrimSpace(i.search.Text)
	i.u.bg(func() func() {
		rows := queryRows(st, q)
		total := len(st.List())
		err := st.Err()
		return func() {
			if gen != i.gen {
				return
			}
			i.rows = rows
			i.list.UnselectAll()
			i.list.Refresh()
			if q == "" {
				i.count.SetText(plural(total, "memory", "memories"))
				i.empty.SetText("No memories yet. Engram keeps what matters as you chat; " +
					"add your own with Add.")
			} else {
				i.count.SetText(fmt.Sprintf("%d of %d", len(rows), total))
				i.empty.SetText("No memory matches “" + q + "”.")
			}
			if (len(rows) == 0) != i.empty.Visible() {
				i.empty.Hidden = len(rows) != 0
				i.relayout()
			}
			i.showErr(err)
		}
	})
}

// queryRows lists the store (pinned first, then the most recently changed)
// for an empty query, and ranks it with the recall engine otherwise.
func queryRows(st memStore, q string) []memRow {
	if q == "" {
		es := st.List()
		sort.SliceStable(es, func(a, b int) bool {
			if es[a].Pinned != es[b].Pinned {
				return es[a].Pinned
			}
			return es[a].Updated.After(es[b].Updated)
		})
		rows := make([]memRow, len(es))
		for k, e := range es {
			rows[k] = memRow{e: e}
		}
		return rows
	}
	hits := st.Recall(q, nil, memory.RecallOptions{K: searchLimit})
	rows := make([]memRow, len(hits))
	for k, h := range hits {
		rows[k] = memRow{e: h.Entry, score: h.Score, terms: h.Terms}
	}
	return rows
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// showErr shows the store's error state (nil hides it).
func (i *inspector) showErr(err error) {
	if err == nil {
		if i.bannerBox.Visible() {
			i.bannerBox.Hide()
			i.relayout()
		}
		return
	}
	msg := err.Error()
	if errors.Is(err, memory.ErrCorrupt) {
		msg += " — the memories shown are what could be kept; fix or replace the file and it reloads, or Repair it."
		i.repair.Show()
	} else {
		i.repair.Hide()
	}
	i.banner.SetText(msg)
	i.bannerBox.Show()
	i.relayout()
}

// repairFile rewrites a memory.json that does not parse from what can be
// read of it (memory.Store.Repair keeps the broken file as a backup).
func (i *inspector) repairFile() {
	st := i.store
	if st == nil {
		return
	}
	i.repair.Disable()
	i.u.write(func() func() {
		rep, err := st.Repair()
		return func() {
			i.repair.Enable()
			if err != nil && !errors.Is(err, memory.ErrNothingToRepair) {
				i.showErr(fmt.Errorf("could not repair: %w", err))
				return
			}
			i.reload()
			i.showErr(st.Err())
			if err == nil {
				i.u.pane.notice(fmt.Sprintf("Repaired %s: %d memories read from it; the broken file is kept as %s.", filepath.Base(st.Path()), rep.Read, rep.Backup))
			}
		}
	})
}

// storeChanged follows a MemoryChanged event: the list reloads if it shows
// that store; an edit in progress is kept.
func (i *inspector) storeChanged(scope agent.Scope, dir string, err error) {
	if scope != i.scope || (scope == agent.ScopeProject && dir != i.project) {
		return
	}
	if i.store == nil {
		i.open()
		return
	}
	i.reload()
	if err != nil {
		i.showErr(err)
	}
}

// highlight marks the memories recalled for the current answer, in both
// tabs.
func (i *inspector) highlight(hits []agent.RecalledHit) {
	i.hits = map[string]agent.RecalledHit{}
	for _, h := range hits {
		i.hits[h.Entry.ID] = h
	}
	i.list.Refresh()
}

// recalled returns the hit of memory id of the shown tab recalled for the
// current answer.
func (i *inspector) recalled(id string) (agent.RecalledHit, bool) {
	h, ok := i.hits[id]
	return h, ok && (h.Scope == i.scope || h.Scope == "")
}

// focusSearch puts the focus in the search box.
func (i *inspector) focusSearch() {
	i.u.w.Canvas().Focus(i.search)
}

// remove deletes entry e and offers to undo it.
func (i *inspector) remove(e memory.Entry) {
	st := i.store
	if st == nil {
		return
	}
	i.u.write(func() func() {
		err := st.Remove(e.ID)
		return func() {
			if err != nil {
				i.ed.fail(err)
				return
			}
			i.ed.close()
			i.undoID, i.undoStore = e.ID, st
			i.undoLabel.SetText("Deleted “" + oneLine(e.Text, 60) + "”")
			i.undoBox.Show()
			i.relayout()
			i.reload()
		}
	})
}

// undo restores the last deleted memory.
func (i *inspector) undo() {
	id, st := i.undoID, i.undoStore
	if st == nil {
		return
	}
	i.undoBox.Hide()
	i.relayout()
	i.undoID, i.undoStore = "", nil
	i.u.write(func() func() {
		err := st.Restore(id)
		return func() {
			if err != nil {
				i.showErr(fmt.Errorf("could not undo the delete: %w", err))
			}
			i.reload()
		}
	})
}

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
	ed.title = widget.NewLabelWithStyle("New memory", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	ed.text = newShortcutEntry()
	ed.text.MultiLine = true
	ed.text.onShortcut = i.u.shortcut
	ed.text.Wrapping = fyne.TextWrapWord
	ed.text.SetMinRowsVisible(3)
	ed.text.SetPlaceHolder("What should Engram remember?")
	kinds := make([]string, len(memory.Kinds))
	for k, kd := range memory.Kinds {
		kinds[k] = string(kd)
	}
	ed.kind = widget.NewSelect(kinds, nil)
	ed.pinned = widget.NewCheck("Pinned", nil)
	ed.msg = widget.NewLabel("")
	ed.msg.Importance = widget.DangerImportance
	ed.msg.Wrapping = fyne.TextWrapWord
	ed.msg.Hide()
	ed.saveB = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), ed.save)
	ed.saveB.Importance = widget.HighImportance
	ed.del = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), func() { i.remove(ed.orig) })
	ed.del.Importance = widget.DangerImportance
	cancel := widget.NewButton("Cancel", ed.close)
	ed.root = container.NewVBox(widget.NewSeparator(), ed.title, ed.text,
		container.NewHBox(widget.NewLabel("Kind"), ed.kind, ed.pinned), ed.msg,
		container.NewHBox(ed.saveB, ed.del, layout.NewSpacer(), cancel))
	ed.root.Hide()
	return ed
}

// open edits e, or a new memory when e is nil.
func (ed *memEditor) open(e *memory.Entry) {
	ed.msg.Hide()
	if e == nil {
		ed.id, ed.orig = "", memory.Entry{}
		ed.title.SetText("New memory")
		ed.text.SetText("")
		ed.kind.SetSelected(string(memory.KindFact))
		ed.pinned.SetChecked(false)
		ed.del.Hide()
	} else {
		ed.id, ed.orig = e.ID, *e
		ed.title.SetText("Edit memory · " + string(e.Source) + " · created " + e.Created.Format("Jan 2, 2006"))
		ed.text.SetText(e.Text)
		ed.kind.SetSelected(string(e.Kind))
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
		msg = "Write something to remember first."
	case errors.Is(err, memory.ErrTooLong):
		msg = "That is too long for one memory; keep it to a sentence or two."
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
	kind := memory.Kind(ed.kind.Selected)
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
		return func() {
			if err != nil {
				ed.fail(err)
				return
			}
			if ed.id == id {
				ed.close()
			}
			i.reload()
		}
	})
}
