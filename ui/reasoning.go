package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// reasoningView is the section of an answer that holds the model's
// reasoning, as Open WebUI and LM Studio show it: a "Thinking…" header
// over the reasoning, open while it streams, that collapses into
// "Thought for 12 s" once the answer starts, and opens again on a tap.
type reasoningView struct {
	widget.BaseWidget
	toggle  *widget.Button
	text    *caption
	box     *fyne.Container
	changed func() // the height changed (nil: nobody to tell)

	open     bool
	thinking bool
	took     time.Duration
}

// newReasoningView returns an empty, closed section; changed, if not nil,
// is called after a tap opened or closed it.
func newReasoningView(changed func()) *reasoningView {
	r := &reasoningView{changed: changed, text: newCaption("", theme.SizeNameText, true)}
	r.toggle = widget.NewButton("", r.tapped)
	r.toggle.Importance = widget.LowImportance
	r.toggle.Alignment = widget.ButtonAlignLeading
	r.box = container.NewVBox(container.NewHBox(r.toggle))
	r.ExtendBaseWidget(r)
	r.show()
	return r
}

// set shows the reasoning so far, whether the model is still thinking, and
// how long it thought. The section opens when thinking starts and closes
// when it ends; in between, and after, only a tap changes that.
func (r *reasoningView) set(text string, thinking bool, took time.Duration) {
	if thinking != r.thinking {
		r.open = thinking
	}
	if text == r.text.Text() && thinking == r.thinking && took == r.took {
		return
	}
	r.thinking, r.took = thinking, took
	r.text.SetText(text)
	r.show()
}

// title is the header: "Thinking…" while it streams, then the time.
func (r *reasoningView) title() string {
	switch {
	case r.thinking:
		return lang.L("Thinking…")
	case r.took <= 0:
		return lang.L("Reasoning")
	case r.took < time.Second:
		return lang.L("Thought for less than a second")
	}
	return lang.L("Thought for {{.N}} s", map[string]any{"N": int(r.took.Round(time.Second) / time.Second)})
}

// show rebuilds the header and the open or closed body.
func (r *reasoningView) show() {
	r.toggle.Text, r.toggle.Icon = r.title(), theme.MenuExpandIcon()
	if r.open {
		r.toggle.Icon = theme.MenuDropDownIcon()
	}
	r.toggle.Refresh()
	objs := []fyne.CanvasObject{r.box.Objects[0]}
	if r.open {
		objs = append(objs, container.NewPadded(r.text))
	}
	r.box.Objects = objs
	r.box.Refresh()
}

// tapped opens or closes the section.
func (r *reasoningView) tapped() {
	r.open = !r.open
	r.show()
	if r.changed != nil {
		r.changed()
	}
}

// CreateRenderer implements fyne.Widget.
func (r *reasoningView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(r.box)
}
