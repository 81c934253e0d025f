package ui

import (
	"errors"
	"fmt"
	"image/color"
	"slices"
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
	"engram/ui/internal/markdown"
)

// session is what the window knows of one chat: its info, its messages as
// loaded and then updated by events, and whether a turn is running.
type session struct {
	info    ChatInfo
	msgs    []*msgState
	loaded  bool
	busy    bool
	queued  string                         // a message sent before msgs loaded, sent once they have
	jump    string                         // the ID of a message to scroll to once msgs are shown
	recall  pendingSave[bool]              // the saves of info.AutoRecall
	capture pendingSave[agent.CaptureMode] // the saves of info.Capture
	// branches are the chat's kept versions (see versions.go), once read.
	branches     []agent.Branch
	branchesRead bool
	switching    bool // a version switch is on its way (versions.go)
	// hidden holds, by message ID, the notices of messages a version
	// switch took away, for when their version is shown again (the
	// notices are the window's, not the chat file's).
	hidden map[string][]string
}

// msgState is a message plus what only the window tracks about it.
type msgState struct {
	Message
	notices   []string
	pending   bool         // the answer is still streaming
	thinking  bool         // the model is reasoning (Message.Reasoning grows)
	open      bool         // the recall/tool disclosure is expanded
	settings  bool         // the error is one that settings fix
	local     bool         // only the window has it (a send that failed to start, an empty answer)
	editing   bool         // the person is editing it (a user message)
	selecting bool         // its text shows selectable (msgselect.go)
	view      *messageView // its view, once it was shown (see msgList)
	asks      []*toolAsk   // the tool calls that ask the person (approval.go)
}

// startTurn adds what turn e starts to the messages (see
// agent.TurnStarted) and returns the answer it writes.
func (s *session) startTurn(e agent.TurnStarted) *msgState {
	now := time.Now()
	if e.Replaces != "" {
		if i := s.index(e.Replaces); i >= 0 {
			s.keepBranch(i, now)
			s.msgs = s.msgs[:i:i]
		}
	}
	if e.Continues != "" {
		if i := s.index(e.Continues); i >= 0 {
			m := s.msgs[i]
			m.pending, m.Stopped, m.Cut, m.Interrupted, m.Err, m.settings = true, false, false, false, "", false
			return m
		}
	}
	if e.UserID != "" {
		s.msgs = append(s.msgs, &msgState{Message: Message{ID: e.UserID, Role: "user", Text: e.Text, Time: now}})
	}
	m := &msgState{Message: Message{ID: e.AnswerID, Role: "assistant", Time: now}, pending: true}
	s.msgs = append(s.msgs, m)
	return m
}

// index returns the index of the message with ID id, or -1.
func (s *session) index(id string) int {
	for i, m := range s.msgs {
		if m.ID == id {
			return i
		}
	}
	return -1
}

// lastAnswer returns the last assistant message, or nil.
func (s *session) lastAnswer() *msgState {
	for i := len(s.msgs) - 1; i >= 0; i-- {
		if s.msgs[i].Role == "assistant" {
			return s.msgs[i]
		}
	}
	return nil
}

// question returns the text of the user message that answer m replies
// to: the last one before it.
func (s *session) question(m *msgState) string {
	q := ""
	for _, x := range s.msgs {
		if x == m {
			return q
		}
		if x.Role == "user" {
			q = x.Text
		}
	}
	return ""
}

// messageActions are what a message's buttons do. Those left nil have no
// button.
type messageActions struct {
	clip       markdown.Clipboard
	retry      func(answer *msgState)
	settings   func()
	changed    func()                    // the view's height may have changed
	reveal     func(o fyne.CanvasObject) // scroll o into view
	focus      func(fyne.Focusable)
	resend     func(m *msgState, text string)
	regenerate func(answer *msgState)
	resume     func(answer *msgState) // continue the answer
	remove     func(m *msgState)
	last       func(m *msgState) bool // m is the chat's last message
	// versions lists the versions of the place m starts (see
	// session.versions); showVersion shows one of them.
	versions    func(m *msgState) ([]string, int)
	showVersion func(m *msgState, id string)
	// openMemory shows a memory of the disclosure in the inspector (nil:
	// its rows are not links).
	openMemory func(h agent.RecalledHit)
}

// messageView draws one message. update rebuilds it from its msgState; the
// body is only re-parsed when the text changed.
type messageView struct {
	m       *msgState
	act     messageActions
	root    *fyne.Container
	body    *fyne.Container
	md      *markdown.View
	details *fyne.Container
	toggle  *widget.Button  // the disclosure's button, once there is one
	opened  *fyne.Container // the open disclosure, once it was opened
	thought *reasoningView  // the reasoning section, once there is reasoning
	edit    *messageEntry   // the message box while the person edits the message
	// the action buttons shown, nil when not
	editB, regenB, contB, delB *tipButton
	prevB, nextB               *tipButton      // the version arrows, nil when not shown
	selB                       *tipButton      // Select text / Show formatted, nil when not shown
	selLabel                   *widget.Label   // the selectable text, while selecting
	selecting                  bool            // the body was drawn selectable
	versionText                string          // "1/2" beside them
	tipText                    *canvas.Text    // the tip of the action under the pointer or focused
	tipBox                     *fyne.Container // tipText, hidden when no tip shows
	header                     *fyne.Container // the row of the name and the actions
	lastText                   string
	pending                    bool
	reasoned                   bool // the body was drawn with reasoning or thinking there (no "Thinking…")
	rendered                   bool
	chrome                     string // what the parts around the body were built from
}

func newMessageView(m *msgState, act messageActions) *messageView {
	v := &messageView{m: m, act: act, body: container.NewVBox(), details: container.NewVBox()}
	v.md = markdown.NewView(v.body, act.clip)
	v.root = container.NewVBox()
	v.update()
	return v
}

var userTint = color.NRGBA{R: 0x3f, G: 0x7f, B: 0xd8, A: 0x22}

// chromeKey sums up what the parts around the body show, so a redraw
// where only the text grew can leave them alone.
func (v *messageView) chromeKey() string {
	m := v.m
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%v|%v|%d|%d|%v|%d|%v|%s|%v|%v|%v|%v|%v|%v|%v", m.Role, m.pending, m.Text == "", len(m.Recalled),
		len(m.Pinned), m.open, len(m.notices), m.Stopped, m.Err, m.settings, m.Cut, m.local, m.editing,
		v.canContinue(), m.Interrupted, v.thought != nil)
	fmt.Fprintf(&b, "|%v", m.selecting)
	b.WriteString("|" + v.versionKey())
	for _, t := range m.Tools {
		fmt.Fprintf(&b, "|%s:%d:%v", t.CallID, len(t.Result), t.Failed)
	}
	for _, a := range m.asks {
		fmt.Fprintf(&b, "|ask %s:%s", a.e.CallID, a.outcome)
	}
	return b.String()
}

// update redraws the message after its state changed. It reports whether
// only the body changed, in which case nothing around it was rebuilt or
// refreshed and the caller lays it out (see chatPane.refresh).
func (v *messageView) update() (bodyOnly bool) {
	m := v.m
	// While the model thinks, the reasoning section says "Thinking…", and
	// while a tool call waits for the person, its prompt says what is
	// going on: the body does not say it too.
	reasoned := m.Reasoning != "" || m.thinking || m.asking()
	if m.pending || m.Text == "" {
		m.selecting = false
	}
	if !v.rendered || m.Text != v.lastText || m.pending != v.pending || reasoned != v.reasoned ||
		m.selecting != v.selecting {
		v.selLabel = nil
		switch {
		case m.selecting:
			v.body.Objects = []fyne.CanvasObject{v.selectableBody()}
			v.body.Refresh()
		case m.pending && m.Text == "" && !reasoned:
			v.body.Objects = []fyne.CanvasObject{dimLabel(lang.L("Thinking…"))}
			v.body.Refresh()
		case m.Text == "":
			v.body.Objects = nil
			v.body.Refresh()
		default:
			v.md.Set(m.Text, !m.pending || v.selecting)
		}
		v.lastText, v.pending, v.reasoned, v.rendered, v.selecting = m.Text, m.pending, reasoned, true, m.selecting
	}
	if m.Reasoning != "" || m.thinking {
		if v.thought == nil {
			v.thought = newReasoningView(v.act.changed)
		}
		v.thought.set(m.Reasoning, m.thinking, m.ThinkingTime)
	}
	key := v.chromeKey()
	if key == v.chrome {
		return true
	}
	v.chrome = key

	var parts []fyne.CanvasObject
	switch m.Role {
	case "user":
		head := widget.NewLabelWithStyle(lang.L("You"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		bg := canvas.NewRectangle(userTint)
		bg.CornerRadius = theme.InputRadiusSize() * 2
		var body fyne.CanvasObject = v.body
		if m.editing {
			body = v.editor()
		}
		v.header = container.NewBorder(nil, nil, nil, v.actionButtons(), head)
		parts = append(parts, container.NewStack(bg, container.NewPadded(container.NewVBox(v.header, body))))
	case "summary":
		head := widget.NewLabelWithStyle(lang.L("Summary of earlier messages"), fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
		parts = append(parts, head, v.body)
	default:
		head := widget.NewLabelWithStyle(lang.L("Engram"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		v.header = container.NewBorder(nil, nil, nil, v.actionButtons(), head)
		parts = append(parts, v.header)
		if v.thought != nil {
			parts = append(parts, v.thought)
		}
		parts = append(parts, v.body)
		parts = append(parts, v.askViews()...)
		if d := v.disclosure(); d != nil {
			parts = append(parts, d)
		}
		for _, n := range m.notices {
			parts = append(parts, dimLabel(n))
		}
		if m.Cut && len(m.notices) == 0 {
			parts = append(parts, dimLabel(lang.L("The answer was cut off.")))
		}
		if m.Stopped {
			parts = append(parts, dimLabel(lang.L("Stopped.")))
		}
		if m.Err != "" {
			parts = append(parts, v.errorBox())
		}
	}
	v.root.Objects = parts
	v.root.Refresh()
	return false
}

// summaryLine is the disclosure's title: "3 memories recalled · 1 pinned ·
// 1 tool call".
func summaryLine(hits, pinned, tools int) string {
	var parts []string
	if hits == 0 {
		parts = append(parts, lang.L("No memories recalled"))
	} else {
		parts = append(parts, count("{{.Count}} memory recalled", hits))
	}
	if pinned > 0 {
		parts = append(parts, lang.L("{{.N}} pinned", map[string]any{"N": pinned}))
	}
	if tools > 0 {
		parts = append(parts, count("{{.Count}} tool call", tools))
	}
	return strings.Join(parts, " · ")
}

// disclosure is the small "N memories recalled · P pinned · M tool calls"
// button that expands to the pinned memories in the prompt, the recalled
// ones (score, matched terms) and the tool calls. Opening it scrolls it
// into view.
func (v *messageView) disclosure() fyne.CanvasObject {
	m := v.m
	if len(m.Recalled) == 0 && len(m.Pinned) == 0 && len(m.Tools) == 0 {
		if m.pending || m.Err != "" || m.Stopped {
			return nil
		}
		return dimLabel(lang.L("No memories recalled"))
	}
	icon := theme.MenuExpandIcon()
	if m.open {
		icon = theme.MenuDropDownIcon()
	}
	// The button outlives the rebuilds so that it keeps the keyboard focus.
	if v.toggle == nil {
		v.toggle = widget.NewButton("", v.toggleOpen)
		v.toggle.Importance = widget.LowImportance
		v.toggle.Alignment = widget.ButtonAlignLeading
	}
	btn := v.toggle
	btn.Text, btn.Icon = summaryLine(len(m.Recalled), len(m.Pinned), len(m.Tools)), icon
	btn.Refresh()
	if !m.open {
		return container.NewHBox(btn)
	}
	v.details.Objects = nil
	for _, h := range m.Pinned {
		v.details.Add(v.memoryLink(h, memoryRow(h.Entry, kindName(h.Entry.Kind)+" · "+scopeName(h.Scope)+" · "+
			lang.L("pinned · in the prompt"))))
	}
	for _, h := range m.Recalled {
		v.details.Add(v.memoryLink(h, hitRow(h)))
	}
	for _, t := range m.Tools {
		v.details.Add(toolRow(t))
	}
	v.opened = container.NewVBox(container.NewHBox(btn), container.NewPadded(v.details))
	return v.opened
}

// toggleOpen expands or collapses the disclosure, and scrolls an opened
// one into view.
func (v *messageView) toggleOpen() {
	v.m.open = !v.m.open
	v.update()
	v.changed()
	if v.m.open && v.act.reveal != nil && v.opened != nil {
		v.act.reveal(v.opened)
	}
}

// memoryLink makes row, the row of memory h, open h in the inspector when
// tapped, if the pane can.
func (v *messageView) memoryLink(h agent.RecalledHit, row fyne.CanvasObject) fyne.CanvasObject {
	if v.act.openMemory == nil {
		return row
	}
	return newMemLink(row, func() { v.act.openMemory(h) })
}

// hitRow shows one recalled memory: kind, scope, score, the terms the
// message matched and those only earlier messages matched, the cosine of a
// hit the dense signal brought ("similar meaning"), text.
func hitRow(h agent.RecalledHit) fyne.CanvasObject {
	meta := kindName(h.Entry.Kind) + " · " + scopeName(h.Scope) + " · " +
		lang.L("score {{.Score}}", map[string]any{"Score": fmt.Sprintf("%.2f", h.Score)})
	var now []string
	for _, t := range h.Terms {
		if !slices.Contains(h.Earlier, t) {
			now = append(now, t)
		}
	}
	if len(now) > 0 {
		meta += " · " + lang.L("matched: {{.Terms}}", map[string]any{"Terms": strings.Join(now, ", ")})
	}
	if len(h.Earlier) > 0 {
		meta += " · " + lang.L("from earlier in the chat: {{.Terms}}", map[string]any{"Terms": strings.Join(h.Earlier, ", ")})
	}
	if h.Meaning > 0 {
		meta += " · " + lang.L("similar meaning {{.Cosine}}", map[string]any{"Cosine": fmt.Sprintf("%.2f", h.Meaning)})
	}
	return memoryRow(h.Entry, meta)
}

// memoryRow shows a memory's kind badge and text with a line about it.
func memoryRow(e memory.Entry, meta string) fyne.CanvasObject {
	text := widget.NewLabel(e.Text)
	text.Wrapping = fyne.TextWrapWord
	return container.NewBorder(nil, nil, firstLine(kindBadge(e.Kind)), nil,
		container.New(look.TightVBox{}, text, captionLabel(meta)))
}

// firstLine places a small object level with the first line of text in a
// tightVBox beside it (which lifts its text by half a padding).
func firstLine(o fyne.CanvasObject) fyne.CanvasObject {
	top := theme.InnerPadding() - theme.Padding()/2
	return container.NewVBox(container.New(layout.NewCustomPaddedLayout(top, 0, 0, 0), o))
}

// toolRow shows a tool call: its name, its arguments and its result.
func toolRow(t ToolRecord) fyne.CanvasObject {
	icon := theme.ComputerIcon()
	status := "→ " + oneLine(t.Result, 200)
	if t.Failed {
		icon = theme.ErrorIcon()
		status = lang.L("failed: {{.Reason}}", map[string]any{"Reason": oneLine(t.Result, 200)})
	} else if t.Result == "" {
		status = lang.L("running…")
	}
	name := widget.NewLabelWithStyle(t.Name, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	return container.NewBorder(nil, nil, firstLine(widget.NewIcon(icon)), nil,
		container.New(look.TightVBox{}, name, captionLabel(oneLine(t.Args, 200)), captionLabel(status)))
}

// errorBox shows a failed turn: what happened, what to do, Retry and (when
// settings can fix it) Open settings.
func (v *messageView) errorBox() fyne.CanvasObject {
	msg := widget.NewLabel(v.m.Err)
	msg.Wrapping = fyne.TextWrapWord
	retry := widget.NewButtonWithIcon(lang.L("Retry"), look.FlatIcon(theme.ViewRefreshIcon()), func() { v.act.retry(v.m) })
	buttons := container.NewHBox(retry)
	if v.m.settings {
		open := widget.NewButtonWithIcon(lang.L("Open settings"), theme.SettingsIcon(), v.act.settings)
		open.Importance = widget.HighImportance
		buttons.Add(open)
	}
	bg := canvas.NewRectangle(color.NRGBA{R: 0xd3, G: 0x2f, B: 0x2f, A: 0x26})
	bg.CornerRadius = theme.InputRadiusSize()
	return container.NewStack(bg, container.NewPadded(container.NewBorder(nil, buttons,
		widget.NewIcon(theme.ErrorIcon()), nil, msg)))
}

// errorText turns a turn's error into words and says whether settings are
// the fix.
func errorText(err error) (string, bool) {
	var ae *agent.Error
	if errors.As(err, &ae) {
		switch ae.Code {
		case agent.CodeNoEndpoint, agent.CodeAuth, agent.CodeModelNotFound, agent.CodeUnreachable:
			return sayWords(ae.Words, ae.Message), true
		}
		return sayWords(ae.Words, ae.Message), false
	}
	return lang.L("The answer failed: {{.Err}}. Check the endpoint in Settings and retry.",
		map[string]any{"Err": err.Error()}), true
}

// caption is secondary text: the theme's placeholder colour, which stays
// readable on light and dark themes (a low-importance label does not).
type caption struct {
	widget.RichText
	seg *widget.TextSegment
}

func newCaption(s string, size fyne.ThemeSizeName, italic bool) *caption {
	c := &caption{seg: &widget.TextSegment{Text: s, Style: widget.RichTextStyle{Inline: true,
		ColorName: theme.ColorNamePlaceHolder, SizeName: size, TextStyle: fyne.TextStyle{Italic: italic}}}}
	c.Segments = []widget.RichTextSegment{c.seg}
	c.Wrapping = fyne.TextWrapWord
	c.Scroll = container.ScrollNone
	c.ExtendBaseWidget(c)
	return c
}

// SetText replaces the caption's text.
func (c *caption) SetText(s string) {
	if c.seg.Text == s {
		return
	}
	c.seg.Text = s
	c.Refresh()
}

// Text is the caption's text.
func (c *caption) Text() string { return c.seg.Text }

// dimLabel is an italic note such as "Stopped.".
func dimLabel(s string) *caption { return newCaption(s, theme.SizeNameText, true) }

// captionLabel is small secondary text.
func captionLabel(s string) *caption { return newCaption(s, theme.SizeNameCaptionText, false) }

// oneLine flattens s to one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
