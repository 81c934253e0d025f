// Package ui is Engram's window: the chat list, the chat pane, the memory
// inspector, the toolbar (project pin, auto-recall, capture mode, model,
// settings) and the settings dialog.
//
// Threading: every method of UI and of its parts runs on the Fyne UI
// goroutine (widget callbacks, or functions passed to fyne.Do). Backend and
// memory store calls never run there. Those that change something (sends,
// cancels, chats, settings, memories), and the reads of the chats whose
// result replaces what the window shows, go through one worker goroutine
// (write), one after the other in the order they were asked for: so the
// last change a person made is the last one saved, and a read sees the
// changes asked for before it. Reads that change nothing (a store's list or
// search, the models, AGENTS.md) run on goroutines of their own (bg). Both
// hand their result back through fyne.Do, the worker's in order; nothing is
// handed back once Close began, but the changes already queued are still
// made. A change shown before it is saved is undone when its save fails,
// unless a later change of the same thing was made (pendingSave). One pump
// goroutine reads the agent's events, merges streamed deltas so the answer
// is redrawn at most ~30 times a second (the final text is always applied,
// before the event that follows it), and applies them through fyne.Do.
//
// A chat's messages are loaded once, when it is first shown; a message sent
// before they have loaded waits for them. So a turn only ever runs in a
// loaded chat, its events all come after what was loaded, and the events of
// a chat not loaded are ignored (what it loads already holds them).
package ui

import (
	"context"
	"errors"
	"image/color"
	"sort"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"

	"engram/agent"
	"engram/assets"
)

// UI is the Engram window's content and state.
type UI struct {
	w    fyne.Window
	b    Backend
	do   func(func()) // runs a function on the UI goroutine (fyne.Do)
	home string

	ctx    context.Context
	cancel context.CancelFunc
	pumpWG sync.WaitGroup // the event pump
	writes *worker        // runs the calls started by write, in order
	work   sync.WaitGroup // calls started by bg and write, until handed back

	chats    []ChatInfo
	sessions map[string]*session
	current  string
	cfg      agent.Config
	cfgSave  pendingSave[agent.Config]
	recent   []string

	list *chatList
	pane *chatPane
	bar  *toolbar
	insp *inspector
	// review shows memory suggestions, forget proposals and undo
	// (suggestions.go); nil when the backend is not a Reviewer.
	review *reviewPanel

	body          *fyne.Container
	split         *container.Split
	left          *container.Split // the chat list beside the rest
	frame         *narrowLayout
	inspectorOpen bool
	drawer        bool              // the inspector is a drawer over the chat (drawer.go)
	drawerBox     *fyne.Container   // the drawer, empty while the inspector is a column
	splitGap      fyne.CanvasObject // the split's hidden other side while the inspector is a drawer
	settingsOpen  bool
	started       bool
	held          []func() // backend work asked for before Start, which runs it

	dialogs  []closable          // the open dialogs, the top one last (dialogs.go)
	settings *settingsForm       // the open settings, or nil
	instrEd  *instructionsEditor // the AGENTS.md editor last opened
	fonts    FontCheck           // how to look for a CJK font
	// fontNotice is the notice of a missing CJK font, once shown.
	fontNotice dialog.Dialog
}

// Options tune a UI. The zero value is what the app uses.
type Options struct {
	// Do runs a function on the UI goroutine; nil means fyne.Do. (The
	// headless test driver runs fyne.Do on the caller's goroutine, so tests
	// that run the UI with background goroutines pass their own.)
	Do func(func())
	// Home is the home folder, which paths show as ~ ("" shows them in
	// full).
	Home string
	// MemoryCap is the entry cap of the memory stores (0:
	// memory.DefaultMaxEntries), for the inspector's "memory is full".
	MemoryCap int
	// Fonts says where to look for a font with Chinese characters; the
	// zero value looks where Fyne does on this system.
	Fonts FontCheck
}

// New builds the window's content for backend b and sets it on w. Call
// Start to load the chats and follow the agent's events, and Close when the
// window is gone. Before Start the window makes no call to b (what people
// ask for meanwhile waits for Start), so it can be drawn while b opens.
func New(w fyne.Window, b Backend, opts Options) *UI {
	if opts.Do == nil {
		opts.Do = fyne.Do
	}
	u := &UI{w: w, b: b, do: opts.Do, home: opts.Home, sessions: map[string]*session{}, inspectorOpen: true,
		fonts: opts.Fonts}
	if err := SetupLanguage(b.Config().Language); err != nil {
		fyne.LogError("language", err)
	}
	if a := fyne.CurrentApp(); a != nil && a.Icon() == nil {
		a.SetIcon(assets.Icon) // a plain go build has no metadata icon
	}
	w.SetIcon(assets.Icon)
	u.ctx, u.cancel = context.WithCancel(context.Background())
	u.writes = newWorker()
	u.list = newChatList(u)
	u.pane = newChatPane(u)
	u.bar = newToolbar(u)
	if r, ok := b.(Reviewer); ok {
		u.review = newReviewPanel(r, u.write, u.do, w)
	}
	u.insp = newInspector(u, opts.MemoryCap)
	u.pane.OnOpenMemory = u.openMemory

	u.split = container.NewHSplit(u.pane.root, u.insp.root)
	u.split.Offset = 0.62
	u.body = container.NewStack(u.split)
	u.drawerBox = container.New(drawerLayout{})
	u.drawerBox.Hide()
	u.splitGap = canvas.NewRectangle(color.Transparent)
	u.splitGap.Hide()
	u.left = container.NewHSplit(u.list.root, u.body)
	u.left.Offset = 0.2
	u.frame = &narrowLayout{u: u}
	w.SetContent(container.New(u.frame, container.NewBorder(u.bar.root, nil, nil, nil, u.left)))
	u.addShortcuts()
	return u
}

// Start loads the chats, the configuration and the global memories, and
// starts following the agent's events. The first run with no endpoint
// opens the settings.
func (u *UI) Start() {
	if u.started {
		return
	}
	u.started = true
	u.cfg = u.b.Config()
	u.bar.setConfig(u.cfg)
	u.pane.focus()
	if u.review != nil {
		u.review.refresh()
	}
	u.pumpWG.Add(2)
	go func() {
		defer u.pumpWG.Done()
		pump(u.ctx, u.b.Events(), u.do, u.applyEvent)
	}()
	go func() { // keeps "5 min ago" in the chat list true
		defer u.pumpWG.Done()
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-u.ctx.Done():
				return
			case <-t.C:
				u.do(u.list.list.Refresh)
			}
		}
	}()
	u.insp.setScope(agent.ScopeGlobal)
	u.write(func() func() {
		chats := u.b.Chats()
		var err error
		if len(chats) == 0 {
			var c ChatInfo
			if c, err = u.b.NewChat(); err == nil {
				chats = []ChatInfo{c}
			}
		}
		recent := u.b.RecentProjects()
		return func() {
			u.recent = recent
			u.setChats(chats)
			if err != nil {
				u.showError(lang.L("Could not create a chat"), err)
			}
			if len(u.chats) > 0 {
				u.selectChat(u.chats[0].ID)
			}
			if unconfigured(u.cfg) {
				u.openSettings()
			}
		}
	})
	u.bar.loadModels()
	u.checkFonts()
	held := u.held
	u.held = nil
	for _, f := range held {
		f()
	}
}

// Close stops the event pump, makes the changes still queued and waits for
// the background calls.
func (u *UI) Close() {
	u.pane.commitDelete() // a delete whose Undo is still offered
	u.cancel()
	u.pumpWG.Wait()
	u.writes.close()
	u.work.Wait()
}

// unconfigured reports whether no endpoint or model has been set.
func unconfigured(c agent.Config) bool { return c.BaseURL == "" || c.Model == "" }

// bg runs work, which must change nothing, on a goroutine of its own; the
// function it returns, if any, is then run on the UI goroutine.
func (u *UI) bg(work func() func()) {
	if !u.started {
		u.held = append(u.held, func() { u.bg(work) })
		return
	}
	u.work.Add(1)
	go func() {
		defer u.work.Done()
		u.handBack(work())
	}()
}

// write queues work on the worker, after the work queued before it; the
// function it returns, if any, is then run on the UI goroutine, after those
// of the work before it.
func (u *UI) write(work func() func()) {
	if !u.started {
		u.held = append(u.held, func() { u.write(work) })
		return
	}
	u.work.Add(1)
	if !u.writes.add(func() {
		defer u.work.Done()
		u.handBack(work())
	}) {
		u.work.Done()
	}
}

// handBack runs apply on the UI goroutine unless the UI is closing.
func (u *UI) handBack(apply func()) {
	if apply == nil {
		return
	}
	u.do(func() {
		if u.ctx.Err() == nil {
			apply()
		}
	})
}

// session returns the state of chat id, creating it if needed.
func (u *UI) session(id string) *session {
	s, ok := u.sessions[id]
	if !ok {
		s = &session{info: ChatInfo{ID: id}}
		for _, c := range u.chats {
			if c.ID == id {
				s.info = c
			}
		}
		u.sessions[id] = s
	}
	return s
}

// answer returns the answer being written in s, starting one if the turn's
// start was missed.
func (s *session) answer() *msgState {
	if n := len(s.msgs); n > 0 && s.msgs[n-1].Role == "assistant" && s.msgs[n-1].pending {
		return s.msgs[n-1]
	}
	m := &msgState{Message: Message{Role: "assistant", Time: time.Now()}, pending: true}
	s.msgs = append(s.msgs, m)
	return m
}

// applyEvent shows one agent event.
func (u *UI) applyEvent(ev agent.Event) {
	switch e := ev.(type) {
	case agent.MemoryChanged:
		u.insp.storeChanged(e.Scope, e.Dir, e.Err)
		return
	case agent.InstructionsChanged:
		u.bar.loadInstructions()
		return
	case agent.ChatChanged:
		u.chatChangedElsewhere(e.ChatID)
		return
	case agent.ChatTitled:
		u.changeInfo(e.ChatID, func(c *ChatInfo) { c.Title = e.Title })
		return
	case agent.SemanticChanged:
		u.insp.indexing.watch()
		return
	case agent.SuggestionsChanged, agent.MemoriesRevised:
		if u.review != nil {
			u.review.applyEvent(ev)
		}
		return
	case agent.Notice:
		if e.ChatID == "" {
			u.pane.notice(sayWords(e.Words, e.Text))
			return
		}
	}
	// A chat's events are only applied once its messages have loaded:
	// a turn starts only in a loaded chat (see chatPane.sendText), so
	// events of a chat not loaded yet are already in what it will load.
	s, ok := u.sessions[ev.Chat()]
	if !ok || !s.loaded {
		return
	}
	cur := ev.Chat() == u.current
	var m *msgState // the message to redraw
	switch e := ev.(type) {
	case agent.TurnStarted:
		s.busy = true
		m = s.startTurn(e)
		if cur {
			u.pane.sync()
			u.insp.highlight(nil)
		}
		if s.info.Title == "" && e.UserID != "" {
			u.refreshChats() // the agent titled the chat from its first message
		}
	case agent.RecallDone:
		m = s.answer()
		m.Recalled, m.Pinned = e.Hits, e.Pinned
		switch {
		case e.Skipped && s.info.Temporary:
			m.notices = append(m.notices, lang.L("A temporary chat: no memory is used, and nothing is kept."))
		case e.Skipped && len(e.Pinned) > 0:
			m.notices = append(m.notices, lang.L("Auto-recall is off for this chat; pinned memories are still included."))
		case e.Skipped:
			m.notices = append(m.notices, lang.L("Auto-recall is off for this chat."))
		}
		if cur {
			u.insp.highlight(e.Hits)
		}
	case agent.ThinkingStarted:
		m = s.answer()
		m.thinking = true
	case agent.ReasoningDelta:
		m = s.answer()
		m.Reasoning += e.Text
	case agent.ThinkingDone:
		m = s.answer()
		m.thinking, m.ThinkingTime = false, e.Total
	case agent.Delta:
		m = s.answer()
		m.Text += e.Text
	case agent.ToolCall:
		m = s.answer()
		m.Tools = append(m.Tools, ToolRecord{CallID: e.CallID, Name: e.Name, Args: e.Args})
	case agent.ToolApproval:
		m = s.answer()
		m.asks = append(m.asks, u.askTool(m, e))
		if !cur {
			u.askedElsewhere(s)
		}
	case agent.ToolResult:
		m = s.answer()
		m.dropAsks(e.CallID)
		for i := range m.Tools {
			if m.Tools[i].CallID == e.CallID {
				m.Tools[i].Result = e.Result
				if e.Err != nil {
					m.Tools[i].Failed = true
					m.Tools[i].Result = e.Err.Error()
				}
			}
		}
	case agent.Notice:
		// A notice of the turn running goes under its answer; one that
		// comes after it (distillation's) under the chat's last answer.
		// It never opens an answer of its own.
		text := sayWords(e.Words, e.Text)
		if m = s.lastAnswer(); m == nil {
			u.pane.notice(text)
			return
		}
		m.notices = append(m.notices, text)
	case agent.MemoriesSaved:
		if m = s.lastAnswer(); m != nil {
			m.notices = append(m.notices, savedNotice(e)...)
		}
	case agent.TurnDone:
		s.busy = false
		m = s.answer()
		m.pending, m.thinking, m.Cut, m.Interrupted = false, false, e.Cut, e.Interrupted
		m.dropAsks("")
		switch {
		case e.Err == nil:
			// The agent saves no answer without text, error or tools.
			m.local = m.Text == "" && m.Reasoning == "" && len(m.Tools) == 0
		case errors.Is(e.Err, context.Canceled):
			m.Stopped = true
		default:
			m.Err, m.settings = errorText(e.Err)
		}
		if cur {
			u.pane.setBusy(false)
		}
		u.refreshChats()
	}
	if cur && m != nil {
		u.pane.refresh(m)
	}
}

// savedNotice says what distillation saved, or why it failed.
func savedNotice(e agent.MemoriesSaved) []string {
	switch {
	case e.Err != nil:
		return []string{lang.L("Could not save memories: {{.Err}}", map[string]any{"Err": e.Err.Error()})}
	case len(e.Entries) > 0 && e.Scope == agent.ScopeProject:
		return []string{count("Remembered {{.Count}} new project memory.", len(e.Entries))}
	case len(e.Entries) > 0:
		return []string{count("Remembered {{.Count}} new global memory.", len(e.Entries))}
	}
	return nil
}

// setChats replaces the chat list, newest first.
func (u *UI) setChats(chats []ChatInfo) {
	sort.SliceStable(chats, func(i, j int) bool { return chats[i].Updated.After(chats[j].Updated) })
	u.chats = chats
	for _, c := range chats {
		if s, ok := u.sessions[c.ID]; ok {
			s.info = c
		}
	}
	u.list.refresh()
}

// refreshChats reloads the chat list (titles and order change after turns).
func (u *UI) refreshChats() {
	u.write(func() func() {
		chats := u.b.Chats()
		return func() { u.setChats(chats) }
	})
}

// currentSession is the selected chat's state, or nil.
func (u *UI) currentSession() *session {
	if u.current == "" {
		return nil
	}
	return u.session(u.current)
}

// selectChat shows chat id, loading its messages if needed, and puts the
// focus in the message box.
func (u *UI) selectChat(id string) {
	if id == u.current && u.currentSession().loaded {
		u.pane.focus()
		return
	}
	u.current = id
	s := u.session(id)
	u.list.selectID(id)
	u.bar.showChat(s.info)
	u.insp.setProject(s.info.Project)
	u.insp.highlight(nil)
	u.pane.show(s)
	u.pane.focus()
	if s.loaded {
		if a := s.lastAnswer(); a != nil {
			u.insp.highlight(a.Recalled)
		}
		return
	}
	u.write(func() func() {
		c, err := u.b.Chat(id)
		return func() { u.chatLoaded(s, c, err) }
	})
}

// chatLoaded shows the messages of s loaded from the agent, and then
// starts the turn of a message sent while they were loading.
func (u *UI) chatLoaded(s *session, c Chat, err error) {
	if err != nil {
		u.pane.unqueue(s)
		u.showError(lang.L("Could not open the chat"), err)
		return
	}
	if s.loaded {
		return
	}
	s.info = c.Info
	s.msgs = make([]*msgState, len(c.Messages))
	for k, m := range c.Messages {
		s.msgs[k] = savedMessage(m)
	}
	s.showNotices()
	s.branches, s.branchesRead = c.Branches, true
	s.loaded = true
	if u.current == s.info.ID {
		u.bar.showChat(s.info)
		u.insp.setProject(s.info.Project)
		u.pane.show(s)
		if a := s.lastAnswer(); a != nil {
			u.insp.highlight(a.Recalled)
		}
		u.pane.jumpTo(s)
	}
	if text := s.queued; text != "" {
		s.queued = ""
		u.pane.startTurn(s, text)
	}
}

// changeInfo changes what the window knows of chat id with fn and returns
// the result. fn sets only the fields of its change, so that changes saved
// at different times do not put back each other's old values.
func (u *UI) changeInfo(id string, fn func(c *ChatInfo)) ChatInfo {
	var out ChatInfo
	for i := range u.chats {
		if u.chats[i].ID == id {
			fn(&u.chats[i])
			out = u.chats[i]
		}
	}
	if s, ok := u.sessions[id]; ok {
		fn(&s.info)
		out = s.info
	}
	u.list.refresh()
	return out
}

// showError shows a failure that has no better place.
func (u *UI) showError(what string, err error) {
	u.showDialog(dialog.NewError(errors.New(what+": "+err.Error()), u.w))
}

// copy puts text on the clipboard.
func (u *UI) copy(text string) {
	fyne.CurrentApp().Clipboard().SetContent(text)
}

// later runs f on the UI goroutine after d, unless the UI closed.
func (u *UI) later(d time.Duration, f func()) {
	time.AfterFunc(d, func() { u.handBack(f) })
}

// toggleInspector shows or hides the memory inspector.
func (u *UI) toggleInspector() {
	u.inspectorOpen = !u.inspectorOpen
	u.showPanels()
	u.bar.inspectorShown(u.inspectorOpen)
}

// stop cancels the current chat's turn.
func (u *UI) stop() {
	s := u.currentSession()
	if s == nil || !s.busy {
		return
	}
	if s.queued != "" {
		u.pane.unqueue(s)
		return
	}
	id := s.info.ID
	u.write(func() func() {
		u.b.Cancel(id)
		return nil
	})
}
