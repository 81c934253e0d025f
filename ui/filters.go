package ui

import (
	"maps"
	"slices"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"engram/memory"
)

// origin groups the sources of memories the way the filters offer them.
type origin int

const (
	originMine      origin = iota // typed or imported by the person
	originModel                   // written by the model (memory_write)
	originDistilled               // distilled after a turn
)

func originOf(s memory.Source) origin {
	switch s {
	case memory.SourceTool:
		return originModel
	case memory.SourceAuto:
		return originDistilled
	}
	return originMine
}

// The orders of the inspector's list.
const (
	sortRelevance = iota // search rank; without a search, pinned then recently changed
	sortNewest
	sortLastUsed
	sortMostUsed
	sortLeastUsed
)

// sortNames are the sort choices, in the order of the constants.
func sortNames() []string {
	return []string{lang.L("Relevance"), lang.L("Newest"), lang.L("Last used"), lang.L("Most used"), lang.L("Least used")}
}

// filter is what the inspector's chips and sort ask for: the kinds and
// origins let through (none chosen lets all through), pinned only, and the
// order.
type filter struct {
	kinds   map[memory.Kind]bool
	origins map[origin]bool
	pinned  bool
	sort    int
}

// clone copies f, for a search running off the UI goroutine.
func (f filter) clone() filter {
	f.kinds, f.origins = maps.Clone(f.kinds), maps.Clone(f.origins)
	return f
}

// active reports whether f hides anything.
func (f filter) active() bool { return len(f.kinds) > 0 || len(f.origins) > 0 || f.pinned }

// keep reports whether f lets e through.
func (f filter) keep(e memory.Entry) bool {
	return (len(f.kinds) == 0 || f.kinds[e.Kind]) && (len(f.origins) == 0 || f.origins[originOf(e.Source)]) &&
		(!f.pinned || e.Pinned)
}

// order sorts rows as f asks; searched rows keep their rank for relevance.
func (f filter) order(rows []memRow, searched bool) {
	var less func(a, b memory.Entry) bool
	switch f.sort {
	case sortRelevance:
		if searched {
			return
		}
		less = func(a, b memory.Entry) bool {
			if a.Pinned != b.Pinned {
				return a.Pinned
			}
			return a.Updated.After(b.Updated)
		}
	case sortNewest:
		less = func(a, b memory.Entry) bool { return a.Created.After(b.Created) }
		if !searched {
			// Rows come in file order, oldest first: of memories saved in
			// the same millisecond, the one saved later comes first.
			slices.Reverse(rows)
		}
	case sortLastUsed:
		less = func(a, b memory.Entry) bool { return a.LastUsed.After(b.LastUsed) }
	case sortMostUsed:
		less = func(a, b memory.Entry) bool { return a.Uses > b.Uses }
	case sortLeastUsed:
		less = func(a, b memory.Entry) bool {
			if a.Uses != b.Uses {
				return a.Uses < b.Uses
			}
			return a.LastUsed.Before(b.LastUsed)
		}
	}
	sort.SliceStable(rows, func(a, b int) bool { return less(rows[a].e, rows[b].e) })
}

// filterBar is the filter chips and the sort, wrapped onto as many rows as
// the column's width needs.
type filterBar struct {
	i       *inspector
	kinds   map[memory.Kind]*widget.Button
	origins map[origin]*widget.Button
	pinned  *widget.Button
	sort    *widget.Select
	root    *fyne.Container
}

func newFilterBar(i *inspector) *filterBar {
	fb := &filterBar{i: i, kinds: map[memory.Kind]*widget.Button{}, origins: map[origin]*widget.Button{}}
	var chips []fyne.CanvasObject
	for _, k := range memory.Kinds {
		b := chip(kindName(k), func() { i.filter.kinds = toggled(i.filter.kinds, k); fb.changed() })
		fb.kinds[k] = b
		chips = append(chips, b)
	}
	for _, o := range []struct {
		o    origin
		name string
	}{{originMine, lang.L("Mine")}, {originModel, lang.L("Model's")}, {originDistilled, lang.L("Distilled")}} {
		b := chip(o.name, func() { i.filter.origins = toggled(i.filter.origins, o.o); fb.changed() })
		fb.origins[o.o] = b
		chips = append(chips, b)
	}
	fb.pinned = chip(lang.L("Pinned"), func() { i.filter.pinned = !i.filter.pinned; fb.changed() })
	chips = append(chips, fb.pinned)
	fb.sort = widget.NewSelect(sortNames(), func(name string) {
		if n := slices.Index(sortNames(), name); n >= 0 && n != i.filter.sort {
			i.filter.sort = n
			i.reload()
		}
	})
	fb.sort.SetSelectedIndex(sortRelevance)
	fb.root = container.New(&flowLayout{}, append(chips, fb.sort)...)
	return fb
}

// chip is a small toggle button of the filter bar.
func chip(text string, tapped func()) *widget.Button {
	b := widget.NewButton(text, tapped)
	b.Importance = widget.LowImportance
	return b
}

// toggled adds k to set or takes it out.
func toggled[K comparable](set map[K]bool, k K) map[K]bool {
	if set[k] {
		delete(set, k)
		return set
	}
	if set == nil {
		set = map[K]bool{}
	}
	set[k] = true
	return set
}

// changed shows the chips as the filter is and lists again.
func (fb *filterBar) changed() {
	fb.show()
	fb.i.reload()
}

// show sets the chips and the sort from the inspector's filter.
func (fb *filterBar) show() {
	f := fb.i.filter
	for k, b := range fb.kinds {
		setChip(b, f.kinds[k])
	}
	for o, b := range fb.origins {
		setChip(b, f.origins[o])
	}
	setChip(fb.pinned, f.pinned)
	if fb.sort.SelectedIndex() != f.sort {
		fb.sort.SetSelectedIndex(f.sort)
	}
}

func setChip(b *widget.Button, on bool) {
	imp := widget.LowImportance
	if on {
		imp = widget.HighImportance
	}
	if b.Importance != imp {
		b.Importance = imp
		b.Refresh()
	}
}
