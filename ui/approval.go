package ui

import (
	"bytes"
	"encoding/json"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
)

// ToolHost is what the window needs of the MCP servers' tools: the
// person's answers to their calls, and Settings → Tools, which shows the
// servers and edits mcp.json. *agent.Agent (so AgentBackend) is one.
type ToolHost interface {
	// Approve answers a ToolApproval (see agent.Agent.Approve).
	Approve(chatID, callID string, d agent.Decision) error
	// ToolServers only reads memory: the UI goroutine may call it.
	ToolServers() []agent.ToolServerStatus
	AddToolServer(s agent.ToolServer) error
	RemoveToolServer(name string) error
	SetToolServerOff(name string, off bool) error
	SetToolServerApproval(name string, a agent.ToolServerApproval) error
}

// toolAsk is a call of an MCP server's tool that waits for the person's
// yes, shown in its answer until they answer it (then the outcome is a
// line in its place) or the call ends.
type toolAsk struct {
	e       agent.ToolApproval
	outcome string                 // what was answered, once it was
	answer  func(d agent.Decision) // records the answer and tells the agent
}

// The most of a call's arguments a prompt shows.
const (
	askArgsRunes = 1200
	askArgsLines = 16
)

// askTool is the prompt of ToolApproval e in answer m of chat chatID.
func (u *UI) askTool(m *msgState, e agent.ToolApproval) *toolAsk {
	a := &toolAsk{e: e}
	a.answer = func(d agent.Decision) {
		if a.outcome != "" {
			return
		}
		a.outcome = decisionText(e, d)
		u.redraw(e.ChatID, m)
		u.write(func() func() {
			err := u.b.Approve(e.ChatID, e.CallID, d)
			if err == nil {
				return nil
			}
			return func() {
				a.outcome = lang.L("Could not answer: {{.Err}}", map[string]any{"Err": err.Error()})
				u.redraw(e.ChatID, m)
			}
		})
	}
	return a
}

// redraw shows the change of message m if its chat is the one shown.
func (u *UI) redraw(chatID string, m *msgState) {
	if chatID == u.current {
		u.pane.refresh(m)
	}
}

// dropAsks takes out of m the prompts that wait for no answer any more:
// all of them when callID is "" (the turn ended), else that call's.
func (m *msgState) dropAsks(callID string) {
	kept := m.asks[:0]
	for _, a := range m.asks {
		if a.outcome != "" || (callID != "" && a.e.CallID != callID) {
			kept = append(kept, a)
		}
	}
	clear(m.asks[len(kept):])
	m.asks = kept
}

// decisionText is the line that replaces a prompt once answered.
func decisionText(e agent.ToolApproval, d agent.Decision) string {
	data := map[string]any{"Tool": e.Tool, "Server": e.Server}
	switch d {
	case agent.AllowOnce:
		return lang.L("Allowed once: {{.Tool}} of {{.Server}}.", data)
	case agent.AllowAlways:
		return lang.L("Allowed: {{.Tool}}, and from now on every tool of {{.Server}}.", data)
	}
	return lang.L("Denied: {{.Tool}} of {{.Server}}.", data)
}

// askTint is the background of a prompt: amber, readable on light and
// dark themes.
var askTint = color.NRGBA{R: 0xf5, G: 0xa6, B: 0x23, A: 0x2e}

// askViews are the prompts and outcomes of the message's tool calls.
func (v *messageView) askViews() []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, a := range v.m.asks {
		if a.outcome != "" {
			out = append(out, dimLabel(a.outcome))
			continue
		}
		out = append(out, askView(a))
	}
	return out
}

// askView is one prompt: which tool of which server, its arguments, and
// the three answers.
func askView(a *toolAsk) fyne.CanvasObject {
	title := widget.NewLabelWithStyle(lang.L("Run {{.Tool}} of the MCP server {{.Server}}?",
		map[string]any{"Tool": a.e.Tool, "Server": a.e.Server}), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	args := widget.NewLabelWithStyle(prettyArgs(a.e.Args), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	args.Wrapping = fyne.TextWrapBreak
	once := widget.NewButton(lang.L("Allow once"), func() { a.answer(agent.AllowOnce) })
	once.Importance = widget.HighImportance
	always := widget.NewButton(lang.L("Always for this server"), func() { a.answer(agent.AllowAlways) })
	deny := widget.NewButton(lang.L("Deny"), func() { a.answer(agent.Deny) })
	bg := canvas.NewRectangle(askTint)
	bg.CornerRadius = theme.InputRadiusSize()
	return container.NewStack(bg, container.NewPadded(container.NewBorder(nil, container.NewHBox(once, always, deny),
		container.NewVBox(widget.NewIcon(theme.QuestionIcon())), nil, container.NewVBox(title, args))))
}

// prettyArgs is a call's arguments indented when they are JSON, cut to
// askArgsLines lines of at most askArgsRunes runes in all.
func prettyArgs(args string) string {
	var b bytes.Buffer
	text := strings.TrimSpace(args)
	if json.Indent(&b, []byte(text), "", "  ") == nil {
		text = b.String()
	}
	if text == "" || text == "{}" {
		return lang.L("(no arguments)")
	}
	cut := false
	if lines := strings.Split(text, "\n"); len(lines) > askArgsLines {
		text, cut = strings.Join(lines[:askArgsLines], "\n"), true
	}
	if r := []rune(text); len(r) > askArgsRunes {
		text, cut = string(r[:askArgsRunes]), true
	}
	if cut {
		text += "\n" + lang.L("… (cut; the tool gets them all)")
	}
	return text
}
