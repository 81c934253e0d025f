package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/memory"
)

// TestInspectorTrashUndoAndEmpty: a delete takes the text out of the file
// and into the trash, which the inspector counts; Undo brings it back from
// there; "Empty trash" asks, then deletes for good (and the delete's Undo
// goes with it).
func TestInspectorTrashUndoAndEmpty(t *testing.T) {
	h := newHarness(t, func(fb *fakeBackend) {
		addMemories(t, fb,
			memory.Entry{Kind: memory.KindFact, Text: "The spare key is under the blue flowerpot."},
			memory.Entry{Kind: memory.KindFact, Text: "The user swims on Tuesdays."})
	})
	i := h.u.insp
	path := filepath.Join(h.fb.dir, "memory.json")
	holds := func() bool {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(data), "flowerpot")
	}
	if i.trash.box.Visible() {
		t.Fatal("the trash bar shows with nothing in the trash")
	}
	deleteRow := func() {
		t.Helper()
		for n, r := range i.rows {
			if strings.Contains(r.e.Text, "flowerpot") {
				editRow(t, i, n)
				test.Tap(i.ed.del)
				h.settle()
				return
			}
		}
		t.Fatalf("no row holds the flowerpot: %d rows", len(i.rows))
	}
	deleteRow()
	if holds() {
		t.Error("after delete the file still holds the text")
	}
	if !i.trash.box.Visible() || i.trash.label.Text != "1 deleted memory in the trash" {
		t.Fatalf("after delete: trash bar shown %v, %q", i.trash.box.Visible(), i.trash.label.Text)
	}
	test.Tap(button(t, i.undoBox, "Undo"))
	h.settle()
	if !holds() || len(i.rows) != 2 || i.trash.box.Visible() {
		t.Fatalf("after Undo: file holds the text %v, %d rows, trash bar shown %v", holds(), len(i.rows), i.trash.box.Visible())
	}

	deleteRow()
	test.Tap(i.trash.empty)
	top := h.w.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(allText(top), "Undo can no longer bring it back") {
		t.Fatalf("Empty trash does not ask first: %v", top)
	}
	test.Tap(button(t, top, "No"))
	h.settle()
	st, err := h.fb.store(agent.ScopeGlobal, "")
	if err != nil {
		t.Fatal(err)
	}
	if items, _ := st.Trash(); len(items) != 1 {
		t.Fatalf("No emptied the trash: %+v", items)
	}
	test.Tap(i.trash.empty)
	test.Tap(button(t, h.w.Canvas().Overlays().Top(), "Yes"))
	h.settle()
	if items, _ := st.Trash(); len(items) != 0 {
		t.Errorf("the trash after Empty trash: %+v", items)
	}
	if i.trash.box.Visible() || i.undoBox.Visible() {
		t.Errorf("after Empty trash: trash bar shown %v, undo shown %v", i.trash.box.Visible(), i.undoBox.Visible())
	}
	if len(i.rows) != 1 || holds() {
		t.Errorf("after Empty trash: %d rows, the file holds the text %v", len(i.rows), holds())
	}
}
