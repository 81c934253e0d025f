package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// selectionOf is the part of the selectable label l that takes the drags
// and the shortcuts, as its window's renderer has it.
func selectionOf(t *testing.T, l *widget.Label) interface {
	fyne.Draggable
	fyne.Shortcutable
} {
	t.Helper()
	for _, o := range test.WidgetRenderer(l).Objects() {
		if s, ok := o.(interface {
			fyne.Draggable
			fyne.Shortcutable
		}); ok {
			return s
		}
	}
	t.Fatal("the label has nothing to select with")
	return nil
}

// dragSelect drags across the first line of l's text from its start to
// the end of prefix, as a person selecting it would.
func dragSelect(t *testing.T, l *widget.Label, prefix string) {
	t.Helper()
	sel := selectionOf(t, l)
	pad := theme.InnerPadding()
	w := fyne.MeasureText(prefix, theme.TextSize(), l.TextStyle).Width
	from := fyne.NewPos(pad, pad+2)
	to := fyne.NewPos(pad+w, pad+2)
	sel.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to}, Dragged: fyne.NewDelta(to.X-from.X, 0)})
	sel.DragEnd()
}

// "Select text" shows an answer's text without its markup in a selectable
// label: part of it can be selected and copied; the same action shows it
// formatted again.
func TestSelectPartOfAnAnswer(t *testing.T) {
	a := test.NewTempApp(t)
	m := &msgState{Message: Message{ID: "a1", Role: "assistant",
		Text: "The port is **8080** now.\n\n- use `go vet`\n- then ship"}}
	v := newMessageView(m, messageActions{})
	w := test.NewWindow(v.root)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 400))
	if v.selB == nil || v.selB.tip != "Select text" {
		t.Fatal("the answer has no Select text action")
	}
	test.Tap(v.selB)
	if v.selLabel == nil || !v.selLabel.Selectable {
		t.Fatal("Select text shows no selectable text")
	}
	if got, want := v.selLabel.Text, "The port is 8080 now.\n\n• use go vet\n• then ship"; got != want {
		t.Errorf("the selectable text is %q, want %q", got, want)
	}
	dragSelect(t, v.selLabel, "The port")
	if got := v.selLabel.SelectedText(); got != "The port" {
		t.Fatalf("the drag selected %q", got)
	}
	selectionOf(t, v.selLabel).TypedShortcut(&fyne.ShortcutCopy{Clipboard: a.Clipboard()})
	if got := a.Clipboard().Content(); got != "The port" {
		t.Errorf("Copy put %q on the clipboard", got)
	}
	if v.selB.tip != "Show formatted" {
		t.Errorf("while selecting the action says %q", v.selB.tip)
	}
	test.Tap(v.selB)
	if v.selLabel != nil || !strings.Contains(shownText(v.body), "8080") || len(objects[*widget.RichText](v.body)) == 0 {
		t.Errorf("Show formatted shows:\n%s", shownText(v.body))
	}
}

// A streaming answer cannot be selected; one that starts again (Continue)
// leaves the selecting.
func TestSelectNotWhileStreaming(t *testing.T) {
	test.NewTempApp(t)
	m := &msgState{Message: Message{ID: "a1", Role: "assistant", Text: "Half"}, pending: true}
	v := newMessageView(m, messageActions{})
	if v.selB != nil {
		t.Fatal("a streaming answer offers Select text")
	}
	m.pending = false
	v.update()
	test.Tap(v.selB)
	m.pending = true
	v.update()
	if m.selecting || v.selLabel != nil {
		t.Error("the answer stays selectable while it streams again")
	}
}
