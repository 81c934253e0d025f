package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// layOut resizes the harness's window and lays the inspector out once
// more, as the window's next frame does once a wrapped part's height
// changed (the test canvas has no frames).
func layOut(h *harness, size fyne.Size) {
	h.w.Resize(size)
	h.u.insp.body.Refresh()
}

// flowRowsOf checks that every object of the filter bar shows whole
// inside the bar and returns how many rows they take.
func flowRowsOf(t *testing.T, fb *filterBar) int {
	t.Helper()
	bar := fb.root.Size()
	rows, bottom := 0, float32(-1)
	for _, o := range fb.root.Objects {
		pos, size, min := o.Position(), o.Size(), o.MinSize()
		name := "sort"
		if b, ok := o.(*widget.Button); ok {
			name = b.Text
		}
		if !o.Visible() || pos.X < 0 || pos.Y < 0 || pos.X+size.Width > bar.Width || pos.Y+size.Height > bar.Height {
			t.Errorf("%q at %v size %v is not inside the bar of %v", name, pos, size, bar)
		}
		if size.Width < min.Width || size.Height < min.Height {
			t.Errorf("%q is clipped: %v, needs %v", name, size, min)
		}
		if pos.Y >= bottom { // the bar is laid out row by row
			rows++
		}
		bottom = max(bottom, pos.Y+size.Height)
	}
	return rows
}

// The filter chips wrap onto more rows in a narrow inspector, every one
// whole and inside the bar, and take one row in a wide one.
func TestFilterChipsWrap(t *testing.T) {
	h := newHarness(t, nil)
	fb := h.u.insp.filters
	layOut(h, fyne.NewSize(1280, 760))
	if rows := flowRowsOf(t, fb); rows < 2 {
		t.Errorf("at 1280 px the chips take %d row, want them wrapped", rows)
	}
	h.u.split.Offset = 0.2
	layOut(h, fyne.NewSize(1600, 760))
	if rows := flowRowsOf(t, fb); rows != 1 {
		t.Errorf("in an inspector %v wide the chips take %d rows, want 1", fb.root.Size().Width, rows)
	}
}
