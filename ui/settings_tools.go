package ui

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"engram/agent"
	"engram/agent/mcptools"
	"engram/ui/internal/look"
)

// toolsPoll is how often the open Tools dialog reads the servers' states:
// the agent follows mcp.json and starts and stops them on its own.
const toolsPoll = 500 * time.Millisecond

// toolsPanel is Settings → Tools: the MCP servers of mcp.json with their
// states, tools and approvals, and the edits of the file (add, remove,
// switch off or on, ask or not), each made at once through the backend.
type toolsPanel struct {
	u      *UI
	list   *fyne.Container
	status *caption // what the last edit or read said, if it failed
	name   *widget.Entry
	target *widget.Entry // the command, or the URL of an HTTP server
	args   *widget.Entry // one argument a line
	env    *widget.Entry // KEY=value, one a line
	add    *widget.Button
	root   fyne.CanvasObject
	shown  string // the statuses the list was built from
}

// toolsButton opens the Tools dialog, for the settings form.
func toolsButton(u *UI) *widget.Button {
	return widget.NewButton(lang.L("MCP servers…"), u.openTools)
}

// newToolsPanel builds the panel; reload fills it.
func newToolsPanel(u *UI) *toolsPanel {
	p := &toolsPanel{u: u, list: container.NewVBox(), status: captionLabel("")}
	p.name = widget.NewEntry()
	p.name.SetPlaceHolder(lang.L("Name, e.g. files"))
	p.target = widget.NewEntry()
	p.target.SetPlaceHolder(lang.L("Command (npx, uvx, a program) or http(s):// URL"))
	p.args = widget.NewMultiLineEntry()
	p.args.SetPlaceHolder(lang.L("Arguments, one a line"))
	p.args.SetMinRowsVisible(2)
	p.env = widget.NewMultiLineEntry()
	p.env.SetPlaceHolder(lang.L("KEY=value, one a line (e.g. a token the server needs)"))
	p.env.SetMinRowsVisible(2)
	p.add = widget.NewButtonWithIcon(lang.L("Add server"), theme.ContentAddIcon(), p.addServer)
	form := widget.NewForm(
		widget.NewFormItem(lang.L("Name"), p.name),
		widget.NewFormItem(lang.L("Command or URL"), p.target),
		widget.NewFormItem(lang.L("Arguments"), p.args),
		widget.NewFormItem(lang.L("Environment"), p.env))
	intro := captionLabel(lang.L("Their tools are offered to the model beside the memory tools; each call waits for your yes unless the server is set to Always allow. Kept in mcp.json (Claude Desktop's format)."))
	scroll := container.NewVScroll(p.list)
	scroll.SetMinSize(fyne.NewSize(0, 260))
	bottom := container.NewVBox(widget.NewSeparator(),
		widget.NewLabelWithStyle(lang.L("Add a server"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		form, container.NewHBox(p.add), p.status)
	p.root = container.NewBorder(intro, bottom, nil, nil, scroll)
	return p
}

// openTools shows the Tools dialog, which follows the servers until it
// is closed.
func (u *UI) openTools() {
	p := newToolsPanel(u)
	ctx, stop := context.WithCancel(u.ctx)
	d := dialog.NewCustom(lang.L("Tools"), lang.L("Close"), p.root, u.w)
	d.SetOnClosed(stop)
	d.Resize(fyne.NewSize(min(640, u.w.Canvas().Size().Width-20), min(620, u.w.Canvas().Size().Height-20)))
	d.Show()
	p.reload()
	u.pumpWG.Add(1) // Close waits for it, as for the pump
	go func() {
		defer u.pumpWG.Done()
		t := time.NewTicker(toolsPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				u.handBack(p.reload)
			}
		}
	}()
}

// reload reads the servers' states and shows them.
func (p *toolsPanel) reload() {
	p.u.bg(func() func() {
		st := p.u.b.ToolServers()
		return func() { p.show(st) }
	})
}

// statusKey sums up what a list of statuses shows.
func statusKey(st []agent.ToolServerStatus) string {
	var b strings.Builder
	for _, s := range st {
		fmt.Fprintf(&b, "%+v|%s|%v|%q\n", s.Server, s.State, s.Err, s.Tools)
	}
	return b.String()
}

// show rebuilds the list if the servers changed.
func (p *toolsPanel) show(st []agent.ToolServerStatus) {
	key := statusKey(st)
	if key == p.shown && p.list.Objects != nil {
		return
	}
	p.shown = key
	p.list.Objects = nil
	if len(st) == 0 {
		p.list.Add(dimLabel(lang.L("No MCP servers yet: add one below.")))
	}
	for _, s := range st {
		p.list.Add(p.serverRow(s))
	}
	p.list.Refresh()
}

// stateText says how a server is doing.
func stateText(s agent.ToolServerStatus) string {
	switch s.State {
	case mcptools.Starting:
		return lang.L("starting…")
	case mcptools.Ready:
		return count("ready · {{.Count}} tool", len(s.Tools))
	case mcptools.Failed:
		reason := ""
		if s.Err != nil {
			reason = oneLine(s.Err.Error(), 300)
		}
		return lang.L("failed: {{.Reason}}", map[string]any{"Reason": reason})
	}
	return lang.L("off")
}

// The approval choices, as the list shows them.
func approvalNames() []string {
	return []string{lang.L("Ask each time"), lang.L("Always allow")}
}

// serverRow shows one server: name, state, how it starts, its tools, and
// its switches.
func (p *toolsPanel) serverRow(s agent.ToolServerStatus) fyne.CanvasObject {
	name := s.Server.Name
	title := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	state := captionLabel(stateText(s))
	launch := s.Server.URL
	if launch == "" {
		launch = strings.Join(append([]string{s.Server.Command}, s.Server.Args...), " ")
	}
	lines := []fyne.CanvasObject{container.NewHBox(title), state, captionLabel(oneLine(launch, 200))}
	if len(s.Server.Env) > 0 { // the names only: the values may be secrets
		lines = append(lines, captionLabel(lang.L("Environment: {{.Names}}",
			map[string]any{"Names": strings.Join(slices.Sorted(maps.Keys(s.Server.Env)), ", ")})))
	}
	if len(s.Tools) > 0 {
		lines = append(lines, captionLabel(lang.L("Tools: {{.Names}}", map[string]any{"Names": strings.Join(s.Tools, ", ")})))
	}
	on := widget.NewCheck(lang.L("On"), nil)
	on.SetChecked(!s.Server.Disabled)
	on.OnChanged = func(v bool) { p.edit(func() error { return p.u.b.SetToolServerOff(name, !v) }) }
	names := approvalNames()
	approval := widget.NewSelect(names, nil)
	approval.SetSelected(names[0])
	if !s.Server.NeedsApproval() {
		approval.SetSelected(names[1])
	}
	approval.OnChanged = func(choice string) {
		a := agent.ApprovalAsk
		if choice == names[1] {
			a = agent.ApprovalAlways
		}
		p.edit(func() error { return p.u.b.SetToolServerApproval(name, a) })
	}
	remove := widget.NewButtonWithIcon("", look.FlatIcon(theme.DeleteIcon()), func() { p.confirmRemove(name) })
	remove.Importance = widget.LowImportance
	controls := container.NewVBox(container.NewHBox(on, wideEnough(approval, names), remove)) // at the top, at their height
	return container.NewVBox(container.NewBorder(nil, nil, nil, controls, container.New(look.TightVBox{}, lines...)),
		widget.NewSeparator())
}

// confirmRemove asks before a server leaves mcp.json.
func (p *toolsPanel) confirmRemove(name string) {
	dialog.ShowConfirm(lang.L("Remove {{.Name}}?", map[string]any{"Name": name}),
		lang.L("Its tools will no longer be offered, and its entry leaves mcp.json."), func(ok bool) {
			if ok {
				p.edit(func() error { return p.u.b.RemoveToolServer(name) })
			}
		}, p.u.w)
}

// addServer adds the server typed in the form; on success the form is
// emptied.
func (p *toolsPanel) addServer() {
	s := agent.ToolServer{Name: strings.TrimSpace(p.name.Text)}
	target := strings.TrimSpace(p.target.Text)
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		s.URL = target
	} else {
		s.Command = target
		for _, a := range strings.Split(p.args.Text, "\n") {
			if a = strings.TrimSpace(a); a != "" {
				s.Args = append(s.Args, a)
			}
		}
		for _, line := range strings.Split(p.env.Text, "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if k = strings.TrimSpace(k); !ok || k == "" { // not shown: it may be a pasted secret
				p.status.SetText(lang.L("Write the environment as KEY=value, one a line."))
				return
			}
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[k] = strings.TrimSpace(v)
		}
	}
	if s.Name == "" || target == "" {
		p.status.SetText(lang.L("Give the server a name and a command or URL."))
		return
	}
	p.edit(func() error { return p.u.b.AddToolServer(s) }, func() {
		p.name.SetText("")
		p.target.SetText("")
		p.args.SetText("")
		p.env.SetText("")
	})
}

// edit makes a change of mcp.json on the worker, then shows its error,
// if any, and the servers as they are (so a refused switch springs back);
// done, if given, runs once the change is made.
func (p *toolsPanel) edit(change func() error, done ...func()) {
	p.status.SetText("")
	p.u.write(func() func() {
		err := change()
		return func() {
			if err != nil {
				p.status.SetText(lang.L("Could not change mcp.json: {{.Err}}", map[string]any{"Err": err.Error()}))
			} else {
				for _, f := range done {
					f()
				}
			}
			p.shown = ""
			p.reload()
		}
	})
}

// wideEnough gives a select the width of its longest choice (a Select is
// as wide as its placeholder, and cuts the rest).
func wideEnough(s *widget.Select, choices []string) fyne.CanvasObject {
	var w float32
	for _, c := range choices {
		w = max(w, fyne.MeasureText(c, theme.TextSize(), fyne.TextStyle{}).Width)
	}
	w += theme.IconInlineSize() + 6*theme.InnerPadding()
	return container.New(layout.NewGridWrapLayout(fyne.NewSize(w, s.MinSize().Height)), s)
}
