package ui

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"engram/agent"
	"engram/memory"
)

// fakeBackend is an agent stand-in: chats in memory, real memory stores in a
// temporary folder, and turns that play a script of events.
type fakeBackend struct {
	dir    string
	events chan agent.Event

	mu       sync.Mutex
	chats    map[string]*Chat
	order    []string
	cfg      agent.Config
	stores   map[string]*memory.Store
	sent     []string // "chatID: text" of each turn's question
	ids      int      // message IDs given
	recent   []string
	script   func(chatID, text string) []agent.Event
	sendErr  error
	canceled []string
	now      time.Time
	loadGate chan struct{} // when set, Chat waits for it to close
	calls    []string      // "chat ID" when Chat returns, "send ID" when Send starts a turn
	// writeHook, when set, makes each SetAutoRecall and SetConfig: it
	// calls apply to write, or returns an error to fail the write.
	writeHook func(apply func() error) error
	// endpoints are the models each endpoint lists (Models, ModelsAt);
	// others fail. Nil: every endpoint lists test-model and other-model.
	endpoints map[string][]string
	modelsAt  []string // the endpoints ModelsAt was asked, in order
	sources   agent.ConfigSources
	// echo, set once the window runs, delivers the MemoryChanged the agent
	// reports for every change of a store, at once so that settle sees it.
	// Before (while prepare fills the stores) nothing is reported: the
	// window reads the stores when it starts.
	echo  func(agent.Event)
	tools fakeTools // the MCP servers (fake_tools_test.go)
}

func newFakeBackend(t testing.TB) *fakeBackend {
	f := &fakeBackend{dir: t.TempDir(), events: make(chan agent.Event, 1000),
		chats: map[string]*Chat{}, stores: map[string]*memory.Store{},
		cfg: agent.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "test-model", AutoRecall: true, Distill: true,
			RecallTopK: 5, RecallBudget: 2000},
		now: time.Now()}
	t.Cleanup(func() {
		for _, s := range f.stores {
			s.Close()
		}
	})
	return f
}

// holdChatLoads makes Chat wait until the returned channel is closed.
func (f *fakeBackend) holdChatLoads() chan struct{} {
	gate := make(chan struct{})
	f.mu.Lock()
	f.loadGate = gate
	f.mu.Unlock()
	return gate
}

func (f *fakeBackend) Events() <-chan agent.Event { return f.events }

func (f *fakeBackend) Send(_ context.Context, chatID, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sendErr != nil {
		return f.sendErr
	}
	f.sent = append(f.sent, chatID+": "+text)
	f.calls = append(f.calls, "send "+chatID)
	// Like the agent, the user's message is recorded before TurnStarted and
	// the answer before TurnDone.
	id := f.nextID()
	f.chats[chatID].Messages = append(f.chats[chatID].Messages, Message{ID: id, Role: agent.RoleUser, Text: text})
	f.play(chatID, text, agent.TurnStarted{UserID: id}, -1)
	return nil
}

// nextID returns a fresh message ID; f.mu is held.
func (f *fakeBackend) nextID() string {
	f.ids++
	return "m" + strconv.Itoa(f.ids)
}

// play runs the script for a turn that answers text, as the agent would:
// its TurnStarted takes the IDs and replacements of start, and the answer
// is recorded before TurnDone, at the end of the chat or in place of
// message cont (when cont >= 0). f.mu is held.
func (f *fakeBackend) play(chatID, text string, start agent.TurnStarted, cont int) {
	var evs []agent.Event
	if f.script != nil {
		evs = f.script(chatID, text)
	} else {
		evs = []agent.Event{agent.TurnStarted{ChatID: chatID, Text: text},
			agent.Delta{ChatID: chatID, Text: "ok"}, agent.TurnDone{ChatID: chatID}}
	}
	if start.AnswerID == "" {
		start.AnswerID = f.nextID()
	}
	var prefix string
	if cont >= 0 {
		prefix = f.chats[chatID].Messages[cont].Text
	}
	go func() {
		var answer strings.Builder
		answer.WriteString(prefix)
		for _, e := range evs {
			switch x := e.(type) {
			case agent.TurnStarted:
				x.UserID, x.AnswerID, x.Replaces, x.Continues = start.UserID, start.AnswerID, start.Replaces, start.Continues
				e = x
			case agent.Delta:
				answer.WriteString(x.Text)
			case agent.TurnDone:
				f.with(chatID, func(c *Chat) {
					m := Message{ID: start.AnswerID, Role: agent.RoleAssistant, Text: answer.String()}
					if x.Err != nil {
						m.Err = x.Err.Error()
					}
					if cont >= 0 && cont < len(c.Messages) {
						c.Messages[cont] = m
					} else {
						c.Messages = append(c.Messages, m)
					}
				})
			}
			f.events <- e
		}
	}()
}

// index returns the index of message msgID in chat c; f.mu is held.
func (f *fakeBackend) index(chatID, msgID string) (int, error) {
	c, ok := f.chats[chatID]
	if !ok {
		return -1, agent.ErrChatNotFound
	}
	for i, m := range c.Messages {
		if m.ID == msgID {
			return i, nil
		}
	}
	return -1, agent.ErrMessageNotFound
}

func (f *fakeBackend) Resend(_ context.Context, chatID, msgID, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.index(chatID, msgID)
	if err != nil {
		return err
	}
	f.sent = append(f.sent, chatID+": "+text)
	c := f.chats[chatID]
	c.Branches = append(c.Branches, agent.Branch{At: i, Messages: slices.Clone(c.Messages[i:])})
	id := f.nextID()
	c.Messages = append(c.Messages[:i:i], Message{ID: id, Role: agent.RoleUser, Text: text})
	f.play(chatID, text, agent.TurnStarted{UserID: id, Replaces: msgID}, -1)
	return nil
}

func (f *fakeBackend) Regenerate(_ context.Context, chatID, msgID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.index(chatID, msgID)
	if err != nil {
		return err
	}
	c := f.chats[chatID]
	q := i
	for q >= 0 && c.Messages[q].Role != agent.RoleUser {
		q--
	}
	if q < 0 {
		return errors.New("no question")
	}
	f.sent = append(f.sent, chatID+": "+c.Messages[q].Text)
	st := agent.TurnStarted{}
	if q+1 < len(c.Messages) {
		st.Replaces = c.Messages[q+1].ID
		c.Branches = append(c.Branches, agent.Branch{At: q + 1, Messages: slices.Clone(c.Messages[q+1:])})
		c.Messages = c.Messages[: q+1 : q+1]
	}
	f.play(chatID, c.Messages[q].Text, st, -1)
	return nil
}

func (f *fakeBackend) Continue(_ context.Context, chatID, msgID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.index(chatID, msgID)
	if err != nil {
		return err
	}
	c := f.chats[chatID]
	if i != len(c.Messages)-1 || c.Messages[i].Role != agent.RoleAssistant {
		return errors.New("not the last answer")
	}
	f.sent = append(f.sent, chatID+": (continue)")
	f.play(chatID, "", agent.TurnStarted{AnswerID: msgID, Continues: msgID}, i)
	return nil
}

func (f *fakeBackend) DeleteMessage(chatID, msgID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, err := f.index(chatID, msgID)
	if err != nil {
		return err
	}
	c := f.chats[chatID]
	c.Messages = slices.Delete(c.Messages, i, i+1)
	return nil
}

func (f *fakeBackend) SearchChats(query string, limit int) []ChatMatch {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := strings.ToLower(query)
	var out []ChatMatch
	for _, id := range f.order {
		c := f.chats[id]
		if strings.Contains(strings.ToLower(c.Title), q) {
			out = append(out, ChatMatch{ChatID: id, Title: c.Title})
		}
		for _, m := range c.Messages {
			if strings.Contains(strings.ToLower(m.Text), q) {
				out = append(out, ChatMatch{ChatID: id, Title: c.Title, MsgID: m.ID, Role: m.Role, Snippet: m.Text})
			}
		}
	}
	return out[:min(len(out), limit)]
}

func (f *fakeBackend) Cancel(chatID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.canceled = append(f.canceled, chatID)
	f.events <- agent.TurnDone{ChatID: chatID, Err: context.Canceled}
}

func (f *fakeBackend) Chats() []ChatInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ChatInfo
	for _, id := range f.order {
		out = append(out, f.chats[id].Info)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out
}

func (f *fakeBackend) NewChat() (ChatInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(time.Second)
	id := "chat" + strconv.Itoa(len(f.order)+1)
	c := &Chat{Info: ChatInfo{ID: id, Created: f.now, Updated: f.now, AutoRecall: f.cfg.AutoRecall}}
	f.chats[id] = c
	f.order = append(f.order, id)
	return c.Info, nil
}

func (f *fakeBackend) Chat(id string) (Chat, error) {
	f.mu.Lock()
	gate := f.loadGate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[id]
	if !ok {
		return Chat{}, agent.ErrChatNotFound
	}
	f.calls = append(f.calls, "chat "+id)
	cc := *c
	cc.Messages = slices.Clone(c.Messages)
	return cc, nil
}

func (f *fakeBackend) with(id string, fn func(c *Chat)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[id]
	if !ok {
		return agent.ErrChatNotFound
	}
	fn(c)
	return nil
}

func (f *fakeBackend) RenameChat(id, title string) error {
	return f.with(id, func(c *Chat) { c.Title = title })
}

func (f *fakeBackend) DeleteChat(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.chats, id)
	for i, x := range f.order {
		if x == id {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
	return nil
}

// write makes a write through writeHook, if set.
func (f *fakeBackend) write(apply func() error) error {
	f.mu.Lock()
	hook := f.writeHook
	f.mu.Unlock()
	if hook == nil {
		return apply()
	}
	return hook(apply)
}

func (f *fakeBackend) SetAutoRecall(id string, on bool) error {
	return f.write(func() error { return f.with(id, func(c *Chat) { c.AutoRecall = on }) })
}

func (f *fakeBackend) SetProject(id, dir string) error {
	return f.with(id, func(c *Chat) {
		c.Project = dir
		if dir != "" {
			f.recent = append([]string{dir}, f.recent...)
		}
	})
}

func (f *fakeBackend) Memory(scope agent.Scope, dir string) (MemoryStore, error) {
	st, err := f.store(scope, dir)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// store opens (once) the real store in the temporary folder that Memory
// hands the window, for tests that fill or inspect it.
func (f *fakeBackend) store(scope agent.Scope, dir string) (*memory.Store, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := filepath.Join(f.dir, "memory.json")
	if scope == agent.ScopeProject {
		if dir == "" {
			return nil, errors.New("no project")
		}
		path = filepath.Join(f.dir, "projects", filepath.Base(dir), "memory.json")
	}
	if s, ok := f.stores[path]; ok {
		return s, nil
	}
	s, err := memory.Open(path, memory.Options{})
	if err != nil {
		return nil, err
	}
	s.OnChange(func() {
		f.mu.Lock()
		echo := f.echo
		f.mu.Unlock()
		if echo != nil {
			echo(agent.MemoryChanged{Scope: scope, Dir: dir, Err: s.Err()})
		}
	})
	f.stores[path] = s
	return s, nil
}

func (f *fakeBackend) Config() agent.Config {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg
}

func (f *fakeBackend) SetConfig(c agent.Config) error {
	return f.write(func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cfg = c
		return nil
	})
}

func (f *fakeBackend) Models(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.endpoints != nil {
		if ms, ok := f.endpoints[f.cfg.BaseURL]; ok {
			return ms, nil
		}
		return nil, errors.New("connection refused")
	}
	return []string{"test-model", "other-model"}, nil
}

func (f *fakeBackend) ModelsAt(_ context.Context, baseURL, _ string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.modelsAt = append(f.modelsAt, baseURL)
	if f.endpoints == nil {
		return []string{"test-model", "other-model"}, nil
	}
	if ms, ok := f.endpoints[baseURL]; ok {
		return ms, nil
	}
	return nil, errors.New("connection refused")
}

func (f *fakeBackend) ConfigSources() agent.ConfigSources {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sources
}

func (f *fakeBackend) askedModels() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.modelsAt)
}

func (f *fakeBackend) Instructions(dir string) InstructionsInfo {
	var info InstructionsInfo
	info.Global.Path = filepath.Join(f.dir, "AGENTS.md")
	_, err := os.Stat(info.Global.Path)
	info.Global.Found = err == nil
	if dir != "" {
		info.Project.Path = filepath.Join(dir, "AGENTS.md")
		_, err := os.Stat(info.Project.Path)
		info.Project.Found = err == nil
	}
	return info
}

func (f *fakeBackend) ReadInstructions(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

func (f *fakeBackend) SaveInstructions(path, text string) error {
	return f.write(func() error { return os.WriteFile(path, []byte(text), 0o600) })
}

func (f *fakeBackend) RecentProjects() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.recent...)
}

func (f *fakeBackend) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeBackend) sentMessages() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

// harness runs a UI on the test app. Functions the UI hands to fyne.Do are
// queued and run on the test goroutine by settle and waitFor, so the test
// and the UI never touch widgets at the same time.
type harness struct {
	t     testing.TB
	w     fyne.Window
	fb    *fakeBackend // nil on the real agent (newAgentHarness)
	u     *UI
	mu    sync.Mutex
	queue []func()
	ready chan struct{}
}

// newHarness runs a UI on a fake backend, which prepare may fill first.
func newHarness(t testing.TB, prepare func(fb *fakeBackend)) *harness {
	t.Helper()
	test.NewTempApp(t)
	fb := newFakeBackend(t)
	if prepare != nil {
		prepare(fb)
	}
	h := startHarness(t, fb)
	h.fb = fb
	fb.mu.Lock()
	fb.echo = func(ev agent.Event) { h.enqueue(func() { h.u.applyEvent(ev) }) }
	fb.mu.Unlock()
	return h
}

// startHarness runs a UI on b until the test ends; the UI is closed before
// the cleanups registered earlier run (the backend's own).
func startHarness(t testing.TB, b Backend) *harness {
	t.Helper()
	h := &harness{t: t, ready: make(chan struct{}, 1)}
	h.w = test.NewWindow(nil)
	h.w.Resize(fyne.NewSize(1200, 760))
	h.u = New(h.w, b, Options{Do: h.enqueue, Fonts: FontCheck{Skip: true}})
	h.u.Start()
	t.Cleanup(func() {
		h.u.cancel()
		h.settle()
		h.u.Close()
		h.w.Close()
	})
	h.settle()
	return h
}

func (h *harness) enqueue(f func()) {
	h.mu.Lock()
	h.queue = append(h.queue, f)
	h.mu.Unlock()
	select {
	case h.ready <- struct{}{}:
	default:
	}
}

// runQueued runs what the UI queued; it reports whether there was anything.
func (h *harness) runQueued() bool {
	h.mu.Lock()
	q := h.queue
	h.queue = nil
	h.mu.Unlock()
	for _, f := range q {
		f()
	}
	return len(q) > 0
}

// settle waits for the UI's background work and runs what it queued, until
// nothing is left.
func (h *harness) settle() {
	for {
		h.u.work.Wait()
		if !h.runQueued() {
			return
		}
	}
}

// waitFor runs queued UI work until cond holds; events come from the fake
// agent's goroutine, so there is no fixed point to settle at.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		h.settle()
		if cond() {
			return
		}
		select {
		case <-h.ready:
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}
