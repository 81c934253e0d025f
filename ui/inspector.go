package ui

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/memory"
	"engram/ui/internal/look"
)

// searchLimit is how many ranked memories a search shows.
const searchLimit = 200

// rowRunes is how much of a memory a row is given to show: more than the
// widest column fits, and short enough that fitting it (Fyne shapes the
// text to find where the ellipsis goes) stays cheap while typing.
const rowRunes = 120

// memRow is one row of the inspector: an entry and, for a search, its rank.
type memRow struct {
	e     memory.Entry
	score float64
	terms []string
}

// inspector is the memory column: Global/Project tabs, a search that ranks
// as you type (completing the word being typed), filters and sort, a
// virtualised list with multi-select, a detail view, an editor, undo for
// deletes and pins, the trash (Empty trash), the store's error state and its
// "full" state.
type inspector struct {
	u        *UI
	scope    agent.Scope
	project  string
	stores   map[string]MemoryStore
	store    MemoryStore
	rows     []memRow
	hits     map[string]agent.RecalledHit
	gen      int
	cap      int // the stores' entry cap
	filter   filter
	sel      *selection
	lastErr  error // of the last change made here (memory.ErrFull)
	total    int
	undoFn   func(st MemoryStore) error
	filters  *filterBar
	detail   *memDetail
	fullBox  *fyne.Container
	fullText *widget.Label
	indexing *indexingLine

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
	undoStore    MemoryStore
	trash        *trashBar
	noProject    fyne.CanvasObject
	empty        *caption
	ed           *memEditor
	body         *fyne.Container
	root         fyne.CanvasObject
}

func newInspector(u *UI, maxEntries int) *inspector {
	if maxEntries <= 0 {
		maxEntries = memory.DefaultMaxEntries
	}
	i := &inspector{u: u, scope: agent.ScopeGlobal, stores: map[string]MemoryStore{}, cap: maxEntries}
	i.global = widget.NewButton(lang.L("Global"), func() { i.setScope(agent.ScopeGlobal) })
	i.proj = widget.NewButton(lang.L("Project"), func() { i.setScope(agent.ScopeProject) })
	tabs := container.New(tabsLayout{}, i.global, i.proj)

	i.search = newShortcutEntry()
	i.search.SetPlaceHolder(lang.L("Search memories… ({{.Key}})", map[string]any{"Key": shortcutName(fyne.KeyF)}))
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
	i.add = widget.NewButtonWithIcon(lang.L("Add"), theme.ContentAddIcon(), func() { i.ed.open(nil) })
	i.count = captionLabel("")
	i.count.Wrapping = fyne.TextWrapOff

	i.list = widget.NewList(func() int { return len(i.rows) }, i.newRow, i.updateRow)
	i.list.OnSelected = func(id widget.ListItemID) {
		i.list.UnselectAll()
		if id >= len(i.rows) {
			return
		}
		if i.sel.on {
			i.toggleSelected(i.rows[id].e.ID)
			return
		}
		i.detail.open(i.rows[id].e)
	}

	i.banner = widget.NewLabel("")
	i.banner.Wrapping = fyne.TextWrapWord
	i.banner.Importance = widget.DangerImportance
	i.repair = widget.NewButton(lang.L("Repair"), i.repairFile)
	i.repair.Hide()
	i.bannerBox = container.NewBorder(nil, i.repair, widget.NewIcon(theme.WarningIcon()), nil, i.banner)
	i.bannerBox.Hide()

	i.undoLabel = widget.NewLabel("")
	i.undoLabel.Truncation = fyne.TextTruncateEllipsis
	undo := widget.NewButtonWithIcon(lang.L("Undo"), theme.ContentUndoIcon(), i.undo)
	closeUndo := widget.NewButtonWithIcon("", theme.CancelIcon(), func() {
		i.undoBox.Hide()
		i.relayout()
	})
	closeUndo.Importance = widget.LowImportance
	i.undoBox = container.NewBorder(nil, nil, nil, container.NewHBox(undo, closeUndo), i.undoLabel)
	i.undoBox.Hide()
	i.trash = newTrashBar(i)

	pin := widget.NewButtonWithIcon(lang.L("Pin a project folder…"), theme.FolderOpenIcon(), func() { u.bar.chooseFolder() })
	i.noProject = container.NewCenter(container.NewVBox(
		widget.NewLabelWithStyle(lang.L("No project pinned to this chat"), fyne.TextAlignCenter, fyne.TextStyle{Bold: true}),
		captionLabel(lang.L("A project's memories are kept apart from the global ones.")), container.NewCenter(pin)))
	i.noProject.Hide()

	i.fullText = widget.NewLabel("")
	i.fullText.Wrapping = fyne.TextWrapWord
	i.fullText.Importance = widget.WarningImportance
	review := widget.NewButton(lang.L("Review least used"), i.review)
	i.fullBox = container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), review, i.fullText)
	i.fullBox.Hide()

	i.ed = newMemEditor(i)
	i.sel = newSelection(i)
	i.filters = newFilterBar(i)
	i.detail = newMemDetail(i)
	i.indexing = newIndexingLine(u, func() MemoryStore { return i.store }, i.relayout)
	title := widget.NewLabelWithStyle(lang.L("Memories"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(
		container.NewBorder(nil, nil, title, container.NewHBox(i.count, i.sel.toggle)),
		tabs,
		container.NewBorder(nil, nil, nil, i.add, i.search),
		i.filters.root,
		i.bannerBox,
		i.fullBox,
		i.indexing.root,
		i.sel.box,
	)
	bottom := container.NewVBox(i.undoBox, i.trash.box, i.ed.root)
	i.empty = captionLabel("")
	i.empty.seg.Style.Alignment = fyne.TextAlignCenter
	i.empty.Hide()
	emptyBox := container.NewVBox(layout.NewSpacer(), i.empty, layout.NewSpacer())
	parts := []fyne.CanvasObject{top, container.NewStack(i.list, emptyBox, i.noProject, i.detail.root), bottom}
	if u.review != nil {
		parts = append(parts, container.NewVScroll(u.review.root))
		u.review.resized = i.relayout
	}
	i.body = container.New(columnLayout{}, parts...)
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
	mark := widget.NewIcon(theme.CheckButtonIcon())
	text := widget.NewLabel("memory text")
	text.Truncation = fyne.TextTruncateEllipsis
	meta := captionLabel("source · last used")
	meta.Wrapping = fyne.TextWrapOff
	meta.Truncation = fyne.TextTruncateEllipsis
	pin := widget.NewLabel("📌")
	row := container.NewBorder(nil, nil, container.NewHBox(mark, b.root), pin, container.New(look.TightVBox{}, text, meta))
	r := &rowBox{content: container.NewStack(hl, row), hl: hl, badge: b, mark: mark, text: text, meta: meta, pin: pin}
	r.ExtendBaseWidget(r)
	return r
}

// rowBox is one inspector row, keeping its parts at hand.
type rowBox struct {
	widget.BaseWidget
	content *fyne.Container
	hl      *canvas.Rectangle
	badge   *badge
	mark    *widget.Icon // the selection mark, while selecting
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
	if text := oneLine(row.e.Text, rowRunes); r.text.Text != text {
		r.text.SetText(text) // fitting a text is the costly part of a row: only when it changes
	}
	if i.sel.on {
		if i.sel.ids[row.e.ID] {
			r.mark.SetResource(theme.CheckButtonCheckedIcon())
		} else {
			r.mark.SetResource(theme.CheckButtonIcon())
		}
		r.mark.Show()
	} else {
		r.mark.Hide()
	}
	meta := rowMeta(row, time.Now())
	if h, ok := i.recalled(row.e.ID); ok {
		meta = lang.L("recalled for this answer · score {{.Score}} · {{.Meta}}",
			map[string]any{"Score": fmt.Sprintf("%.2f", h.Score), "Meta": meta})
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
	parts := []string{sourceName(r.e.Source)}
	if r.e.Pinned {
		parts = append(parts, lang.L("pinned"))
	}
	if r.e.LastUsed.IsZero() {
		parts = append(parts, lang.L("never used"))
	} else {
		parts = append(parts, lang.L("used {{.When}}", map[string]any{"When": since(r.e.LastUsed, now)}))
	}
	if r.score > 0 {
		s := lang.L("score {{.Score}}", map[string]any{"Score": fmt.Sprintf("%.2f", r.score)})
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
	i.proj.SetText(lang.L("Project"))
	if i.project != "" {
		i.proj.SetText(lang.L("Project: {{.Name}}", map[string]any{"Name": baseName(i.project)}))
	}
	i.global.Refresh()
	i.proj.Refresh()
}

func storeKey(s agent.Scope, dir string) string { return string(s) + "\x00" + dir }

// open shows the store of the current scope, opening it if needed.
func (i *inspector) open() {
	i.ed.close()
	i.detail.close()
	i.sel.clear()
	i.list.UnselectAll()
	if i.scope == agent.ScopeProject && i.project == "" {
		i.store = nil
		i.rows = nil
		i.empty.Hide()
		i.list.Refresh()
		i.count.SetText("")
		i.bannerBox.Hide()
		i.fullBox.Hide()
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
				i.showErr(fmt.Errorf("%s: %w", lang.L("Could not open the memories"), err))
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

// reload lists or searches the store again, off the UI goroutine, with
// the filters and the sort; only the latest request's result is shown. The
// editor is left alone.
func (i *inspector) reload() {
	st := i.store
	if st == nil {
		return
	}
	i.gen++
	gen, typed, f := i.gen, i.search.Text, i.filter.clone()
	q := strings.TrimSpace(typed)
	i.u.bg(func() func() {
		rows := queryRows(st, typed, f)
		total := st.Len()
		err := st.Err()
		trashed := trashCount(st)
		return func() {
			if gen != i.gen {
				return
			}
			i.rows = rows
			i.total = total
			i.list.UnselectAll()
			i.list.Refresh()
			switch {
			case q == "" && !f.active():
				i.count.SetText(count("{{.Count}} memory", total))
				i.empty.SetText(lang.L("No memories yet. Engram keeps what matters as you chat; add your own with Add."))
			case q == "":
				i.count.SetText(lang.L("{{.Shown}} of {{.Total}}", map[string]any{"Shown": len(rows), "Total": total}))
				i.empty.SetText(lang.L("No memory matches these filters."))
			default:
				i.count.SetText(lang.L("{{.Shown}} of {{.Total}}", map[string]any{"Shown": len(rows), "Total": total}))
				i.empty.SetText(lang.L("No memory matches “{{.Query}}”.", map[string]any{"Query": q}))
			}
			if (len(rows) == 0) != i.empty.Visible() {
				i.empty.Hidden = len(rows) != 0
				i.relayout()
			}
			i.showErr(err)
			i.showFull()
			i.trash.show(trashed)
			i.sel.update()
			i.detail.refresh()
			i.indexing.watch()
		}
	})
}

// storeFull reports whether a store of n live entries is at its cap: a
// new memory then replaces an unpinned one the model saved, or fails when
// there is none (memory.ErrFull).
func storeFull(n, cap int, lastErr error) bool {
	return n >= cap || errors.Is(lastErr, memory.ErrFull)
}

// showFull shows or hides the "memory is full" state.
func (i *inspector) showFull() {
	full := i.store != nil && storeFull(i.total, i.cap, i.lastErr)
	if full {
		i.fullText.SetText(lang.L("Memory is full ({{.Count}} of {{.Cap}}): a new memory can only replace one the model saved, never one you wrote. Review old memories and delete what is no longer needed.",
			map[string]any{"Count": i.total, "Cap": i.cap}))
	}
	if full != i.fullBox.Visible() {
		i.fullBox.Hidden = !full
		i.relayout()
	}
}

// review lists the memories least used first, with no search or filter,
// to choose what to delete when the store is full.
func (i *inspector) review() {
	i.filter = filter{sort: sortLeastUsed}
	i.filters.show()
	if i.search.Text != "" {
		i.search.SetText("") // reloads
		return
	}
	i.reload()
}

// queryRows lists the store for an empty query and otherwise ranks it with
// memory's Search (the word being typed completed), as engramctl memory
// search does, then keeps the rows f lets through, in f's order.
func queryRows(st MemoryStore, q string, f filter) []memRow {
	var rows []memRow
	searching := strings.TrimSpace(q) != ""
	if !searching {
		for _, e := range st.List() {
			if f.keep(e) {
				rows = append(rows, memRow{e: e})
			}
		}
	} else {
		for _, h := range st.Search(q, searchLimit) {
			if f.keep(h.Entry) {
				rows = append(rows, memRow{e: h.Entry, score: h.Score, terms: h.Terms})
			}
		}
	}
	f.order(rows, searching)
	return rows
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
		msg += lang.L(" — the memories shown are what could be kept; fix or replace the file and it reloads, or Repair it.")
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
				i.showErr(fmt.Errorf(lang.L("could not repair: %w"), err))
				return
			}
			i.showErr(st.Err())
			if err == nil {
				i.u.pane.notice(fmt.Sprintf(lang.L("Repaired %s: %d memories read from it; the broken file is kept as %s."),
					filepath.Base(st.Path()), rep.Read, rep.Backup))
			}
		}
	})
}

// storeChanged follows a MemoryChanged event: the list reloads if it shows
// that store; an edit in progress is kept. It is the one reload after a
// change, the inspector's own edits included: the backend reports every
// change of a store it handed out, so an edit's result reloads nothing.
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
	i.indexing.watch()
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
