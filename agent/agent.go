package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"engram/agent/chat"
	"engram/agent/distill"
	"engram/agent/llm"
	"engram/agent/llm/openai"
	"engram/memory"
)

// Defaults of the Options.
const (
	DefaultMaxSteps   = 8
	DefaultRetryDelay = time.Second
	maxRetries        = 3
	recentUserHistory = 3 // earlier user messages used as recall history
)

// Options configure an Agent.
type Options struct {
	Config Config
	Paths  Paths
	// Connect makes the Completer of the configured endpoint, for each
	// turn, distillation and Models call (nil: the OpenAI-compatible
	// adapter of agent/llm/openai over HTTPClient). Tests of the turn loop
	// put a scripted Completer here.
	Connect Connect
	// HTTPClient carries the default Connect's requests (nil: a client
	// with connect and header timeouts); tests point it at httptest.
	HTTPClient *http.Client
	Now        func() time.Time // nil: time.Now
	// Memory are the options of the memory stores the agent opens (Now
	// defaults to the agent's).
	Memory memory.Options
	// MaxSteps bounds the model calls of one turn (default 8); the last
	// one is offered no tools, so the model has to answer.
	MaxSteps int
	// RetryDelay is the wait before the first retry of a 429 or 5xx; it
	// doubles for each of the 3 retries (default 1s).
	RetryDelay time.Duration
	// Getenv reads the environment that Config was resolved with: the
	// program passes os.Getenv (nil: no environment). With it the agent
	// knows which of the endpoint, key and model come from OPENAI_BASE_URL,
	// OPENAI_API_KEY and ENGRAM_MODEL, so that they keep overriding
	// config.json when the file changes, as they would at the next start,
	// and SetConfig does not write them into it. An endpoint or model that
	// neither the environment nor config.json gave (a detected local
	// server) stays in use while config.json leaves it empty.
	Getenv func(string) string
}

// Connect makes the Completer of an endpoint: its base URL (".../v1"), API
// key (may be empty) and the stream limits of the Config.
type Connect func(ep llm.Endpoint) llm.Completer

// openAICompatible is the default Connect: the go-openai adapter over
// httpClient (nil: the adapter's client with timeouts).
func openAICompatible(httpClient *http.Client) Connect {
	return func(ep llm.Endpoint) llm.Completer { return openai.New(ep, httpClient) }
}

// Agent runs chat turns against a model with memory; Events tells what
// happens (the delivery rules are on Event).
//
// Every method of Agent is safe to call from any goroutine. Apart from
// Models, Wait and Close, none waits for the network or for a turn, so the
// UI goroutine may call them: Send, Retry, Resend, Regenerate, Continue,
// Cancel, Running, Chats, Chat, Config and Events return at once; NewChat,
// RenameChat, DeleteChat, DeleteMessage, SetAutoRecall, SetProject and
// SetConfig write one small file; Instructions reads an AGENTS.md, and
// Memory may open a project's store file. Models asks the endpoint for its
// models: call it off the UI goroutine. Wait blocks until every turn and
// distillation has finished, and Close cancels them first and then waits;
// as the agent never waits for the event consumer, both may be called from
// any goroutine, but Wait not from the UI goroutine while a turn runs (the
// window would freeze until it ends).
//
// Its goroutines: one per running turn (and one beside it that saves the
// user's message while recall runs), one per distillation, the pump of the
// event queue (eventq.go) and the file watcher's (live.go), whose
// callbacks run one at a time. Close ends them all.
type Agent struct {
	opts   Options
	now    func() time.Time
	events *eventQueue
	chats  *chat.Store
	global *storeState
	instr  *Instructions
	live   *live           // follows file changes (live.go); nil without a watcher
	ctx    context.Context // cancelled by Close
	stop   context.CancelFunc

	cfgMu sync.Mutex   // serialises SetConfig and the reloads of config.json
	src   configSource // guarded by cfgMu

	mu       sync.Mutex
	cfg      Config
	projects map[string]*projectState // by folder
	running  map[string]context.CancelFunc
	closed   bool
	busy     int // running turns and distillations
	idle     *sync.Cond

	pipe *distill.Pipeline // distillation, suggestions and forget proposals
	seen seenIDs           // memory IDs shown to the model, by chat (tools.go)
}

// storeState is an open memory store with its pinned entries cached.
type storeState struct {
	st    *memory.Store
	scope Scope
	dir   string

	mu        sync.Mutex
	pinned    []memory.Entry
	pinnedOK  bool
	reloading int // reloads in progress in memoryFileChanged, which reports their change itself
}

// target is the store as the memory pipeline sees it.
func (ss *storeState) target() distill.Target {
	return distill.Target{Store: ss.st, Scope: ss.scope, Dir: ss.dir}
}

// projectState is a project folder pinned to a chat: its AGENTS.md, and
// its memory store once a turn or Memory needed it.
type projectState struct {
	dir   string
	instr *Instructions

	mu    sync.Mutex  // serialises opening the store
	store *storeState // nil until opened; set with mu and Agent.mu held
}

// errClosed is returned by the methods that need the agent after Close.
var errClosed = errors.New("agent is closed")

// New opens the global memory store and the saved chats. Nothing is sent
// over the network. A config without an endpoint is fine: turns then end
// with CodeNoEndpoint.
func New(opts Options) (*Agent, error) {
	if opts.Paths.ConfigDir == "" || opts.Paths.DataDir == "" {
		return nil, errors.New("new agent: Paths.ConfigDir and Paths.DataDir are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Memory.Now == nil {
		opts.Memory.Now = opts.Now
	}
	if opts.Connect == nil {
		opts.Connect = openAICompatible(opts.HTTPClient)
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = DefaultRetryDelay
	}
	chats, err := chat.Load(opts.Paths.ChatsDir(), opts.Now)
	if err != nil {
		return nil, fmt.Errorf("new agent: %w", err)
	}
	a := &Agent{opts: opts, now: opts.Now, events: newEventQueue(), chats: chats,
		cfg: opts.Config.withDefaults(), projects: map[string]*projectState{},
		running: map[string]context.CancelFunc{}, instr: NewInstructions(opts.Paths.GlobalInstructions())}
	a.idle = sync.NewCond(&a.mu)
	a.pipe = distill.New(distill.Config{
		Recall: func(stores []distill.Target, query string, k int) []RecalledHit {
			return bestHits(stores, query, nil, k, false)
		},
		Notice:          func(chatID, text string) { a.emit(Notice{ChatID: chatID, Text: text}) },
		SuggestionsFile: filepath.Join(opts.Paths.DataDir, "suggestions.json"),
		Now:             opts.Now,
	})
	file, err := LoadConfig(opts.Paths.ConfigFile(), nil)
	if err != nil {
		file = Config{} // unreadable: none of the values in use came from it
	}
	a.src = newConfigSource(a.cfg, file, opts.Getenv)
	a.ctx, a.stop = context.WithCancel(context.Background())
	st, err := memory.Open(opts.Paths.GlobalMemory(), opts.Memory)
	if err != nil {
		a.stop()
		a.events.close()
		return nil, fmt.Errorf("new agent: %w", err)
	}
	for _, err := range chats.LoadErrors() {
		a.events.emit(Notice{Text: fmt.Sprintf("A saved chat could not be read and is not shown: %v", err)})
	}
	a.global = a.watch(st, ScopeGlobal, "")
	a.startLive()
	for _, dir := range a.RecentProjects() {
		_, _ = a.pinned(dir) // follow its AGENTS.md; only fails once closed
	}
	if err := st.Err(); err != nil {
		a.events.emit(MemoryChanged{Scope: ScopeGlobal, Err: err})
	}
	return a, nil
}

// watch wraps an opened store and turns its changes into MemoryChanged
// events. The change a reload of an outside edit makes is left to
// memoryFileChanged, which reports it once, as External.
func (a *Agent) watch(st *memory.Store, scope Scope, dir string) *storeState {
	ss := &storeState{st: st, scope: scope, dir: dir}
	st.OnChange(func() {
		ss.mu.Lock()
		ss.pinnedOK = false
		reloading := ss.reloading > 0
		ss.mu.Unlock()
		if !reloading {
			a.events.emit(MemoryChanged{Scope: scope, Dir: dir, Err: st.Err()})
		}
	})
	return ss
}

// pinnedEntries returns the store's pinned live entries, cached until the
// store changes.
func (ss *storeState) pinnedEntries() []memory.Entry {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.pinnedOK {
		ss.pinned = ss.pinned[:0]
		for _, e := range ss.st.List() {
			if e.Pinned && e.Live() {
				ss.pinned = append(ss.pinned, e)
			}
		}
		ss.pinnedOK = true
	}
	return append([]memory.Entry(nil), ss.pinned...)
}

// Events returns the agent's event channel. There is one channel; it is
// closed by Close.
func (a *Agent) Events() <-chan Event { return a.events.out }

// Config returns the config the next turn uses.
func (a *Agent) Config() Config {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg
}

// SetConfig saves c to config.json and uses it from the next turn on. Of
// the endpoint, key and model, only those that differ from Config() are
// written; the others keep the file's value, so a key from OPENAI_API_KEY
// (or an endpoint found on this machine) is not copied into the file. A
// field the person changes wins over the environment for the rest of the
// run. A config.json that does not parse is not overwritten: SetConfig
// fails until it is fixed or removed.
func (a *Agent) SetConfig(c Config) error {
	path := a.opts.Paths.ConfigFile()
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	file, err := LoadConfig(path, nil)
	if err != nil {
		return fmt.Errorf("save settings: %w (fix or remove the file first)", err)
	}
	save, changed := toSave(c.withDefaults(), a.Config(), file)
	if err := SaveConfig(path, save); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	for i, ch := range changed {
		a.src.chosen[i] = a.src.chosen[i] || ch
	}
	cfg := a.src.inUse(save)
	a.mu.Lock()
	a.cfg = cfg
	a.mu.Unlock()
	return nil
}

// Models lists the models of the configured endpoint.
func (a *Agent) Models(ctx context.Context) ([]string, error) {
	c := a.Config()
	if c.BaseURL == "" {
		return nil, errNoEndpoint()
	}
	ids, err := a.opts.Connect(c.endpoint()).Models(ctx)
	if err != nil {
		return nil, classify(err, c.Model)
	}
	return ids, nil
}

// Memory returns the global store, or the store of a project folder
// (opened on first use).
func (a *Agent) Memory(scope Scope, projectDir string) (*memory.Store, error) {
	switch scope {
	case ScopeGlobal:
		return a.global.st, nil
	case ScopeProject:
		p, err := a.project(projectDir)
		if err != nil {
			return nil, err
		}
		return p.store.st, nil
	}
	return nil, fmt.Errorf("memory: unknown scope %q", scope)
}

// pinned returns the state of a project folder, without its store: the
// first time, it only starts following the folder's AGENTS.md (nothing is
// read).
func (a *Agent) pinned(dir string) (*projectState, error) {
	if dir == "" {
		return nil, errors.New("no project folder is pinned")
	}
	dir = cleanDir(dir)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, errClosed
	}
	p, ok := a.projects[dir]
	if !ok {
		p = &projectState{dir: dir, instr: NewInstructions(filepath.Join(dir, InstructionsFileName))}
		a.projects[dir] = p
		a.followInstructions(p.instr)
	}
	return p, nil
}

// project returns the state of a project folder with its store open. The
// store is opened without holding a.mu, so that a large file does not hold
// up the calls the UI makes meanwhile.
func (a *Agent) project(dir string) (*projectState, error) {
	p, err := a.pinned(dir)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.store != nil {
		return p, nil
	}
	path := a.opts.Paths.ProjectMemory(p.dir)
	st, err := memory.Open(path, a.opts.Memory)
	if err != nil {
		return nil, fmt.Errorf("open project memory for %s: %w", p.dir, err)
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		_ = st.Close() // nothing was written
		return nil, errClosed
	}
	ss := a.watch(st, ScopeProject, p.dir)
	p.store = ss
	a.mu.Unlock()
	a.followMemory(path, ss)
	if err := st.Err(); err != nil {
		a.events.emit(MemoryChanged{Scope: ScopeProject, Dir: p.dir, Err: err})
	}
	return p, nil
}

func cleanDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return filepath.Clean(dir)
}

// Instructions reports the global AGENTS.md and that of projectDir ("" for
// none), reading them the first time.
func (a *Agent) Instructions(projectDir string) InstructionsInfo {
	info := InstructionsInfo{Global: a.instr.Info()}
	if projectDir != "" {
		if p, err := a.pinned(projectDir); err == nil {
			info.Project = p.instr.Info()
		} else {
			info.Project = InstructionFile{Path: filepath.Join(projectDir, InstructionsFileName), Err: err}
		}
	}
	return info
}

// Chats lists the chats, most recently updated first.
func (a *Agent) Chats() []ChatInfo { return a.chats.List() }

// NewChat creates an empty chat with the config's auto-recall default.
func (a *Agent) NewChat() (ChatInfo, error) {
	return a.chats.Create(a.Config().AutoRecall, "")
}

// Chat returns a chat with its messages; the memories recalled for its
// answers are read from the stores (the chat file only refers to them).
func (a *Agent) Chat(id string) (Chat, error) {
	c, err := a.chats.Get(id)
	if err != nil {
		return c, err
	}
	return a.resolveRecalled(c), nil
}

// RenameChat sets a chat's title.
func (a *Agent) RenameChat(id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("rename chat: the title is empty")
	}
	return a.chats.Update(id, func(c *Chat) bool { c.Title = title; return true })
}

// DeleteChat cancels the chat's turn, if any, and deletes it.
func (a *Agent) DeleteChat(id string) error {
	a.Cancel(id)
	return a.chats.Remove(id)
}

// SetAutoRecall turns a chat's auto-recall on or off.
func (a *Agent) SetAutoRecall(id string, on bool) error {
	return a.chats.Update(id, func(c *Chat) bool { c.AutoRecall = on; return true })
}

// SetProject pins a project folder to a chat ("" unpins): its AGENTS.md
// joins the prompt and its memory store joins recall and the tools. Its
// AGENTS.md is followed from now on.
func (a *Agent) SetProject(id, dir string) error {
	if dir != "" {
		dir = cleanDir(dir)
		st, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("pin project: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("pin project: %s is not a folder", dir)
		}
	}
	if err := a.chats.Update(id, func(c *Chat) bool { c.Project = dir; return true }); err != nil {
		return err
	}
	if dir != "" {
		_, _ = a.pinned(dir) // only fails once closed
	}
	return nil
}

// RecentProjects lists the project folders of the chats, most recently used
// first.
func (a *Agent) RecentProjects() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range a.chats.List() {
		if c.Project != "" && !seen[c.Project] {
			seen[c.Project] = true
			out = append(out, c.Project)
		}
	}
	return out
}

// Send starts a turn: it records text as the user's message and returns at
// once; the turn runs on its own goroutine and reports through Events. The
// error is only for empty text, an unknown chat, a turn already running in
// the chat, or a closed agent. Cancelling ctx (or Cancel) stops the turn.
func (a *Agent) Send(ctx context.Context, chatID, text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("send: the message is empty")
	}
	if err := a.start(ctx, chatID, a.appendUser(text)); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// Retry asks again for the answer to the chat's last user message, after
// that answer failed, broke off (Message.Interrupted) or was stopped: a
// turn runs as after Send, without recording the message again. The
// earlier answer stays in the chat; an interrupted one is not sent to the
// model. The error is for an unknown chat, a chat whose last message is
// not such an answer, a turn already running, or a closed agent.
func (a *Agent) Retry(ctx context.Context, chatID string) error {
	st := func(c *Chat, ts *turnState) (TurnStarted, error) {
		n, u := len(c.Messages), lastUser(c.Messages)
		if u < 0 || u < n-1 && !failed(c.Messages[n-1]) {
			return TurnStarted{}, errors.New("the chat's last answer did not fail")
		}
		ts.userID = c.Messages[u].ID
		return TurnStarted{Text: c.Messages[u].Text}, nil
	}
	return a.check(ctx, "retry", chatID, st)
}

// failed reports an answer that Retry may ask again.
func failed(m Message) bool {
	return m.Role == RoleAssistant && (m.Err != "" || m.Interrupted || m.Stopped)
}

// start runs the turn that st prepares on its own goroutine, unless the
// chat is unknown, runs a turn already or the agent is closed.
func (a *Agent) start(ctx context.Context, chatID string, st starter) error {
	if _, err := a.chats.Info(chatID); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return errClosed
	}
	if _, ok := a.running[chatID]; ok {
		return ErrTurnRunning
	}
	tctx, cancel := context.WithCancel(ctx)
	stopWithAgent := context.AfterFunc(a.ctx, cancel)
	a.running[chatID] = cancel
	a.busy++
	go func() {
		defer func() {
			stopWithAgent()
			cancel()
			a.done()
		}()
		a.turn(tctx, chatID, st)
	}()
	return nil
}

// Cancel stops the chat's running turn, if any. The turn ends with a
// TurnDone whose Err is context.Canceled.
func (a *Agent) Cancel(chatID string) {
	a.mu.Lock()
	cancel := a.running[chatID]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Running reports whether a turn runs in the chat.
func (a *Agent) Running(chatID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.running[chatID]
	return ok
}

// Wait blocks until no turn and no distillation runs.
func (a *Agent) Wait() {
	a.mu.Lock()
	for a.busy > 0 {
		a.idle.Wait()
	}
	a.mu.Unlock()
}

// track counts a background job for Wait; false when closed.
func (a *Agent) track() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.busy++
	return true
}

func (a *Agent) done() {
	a.mu.Lock()
	a.busy--
	if a.busy == 0 {
		a.idle.Broadcast()
	}
	a.mu.Unlock()
}

// Close cancels running turns and distillations, waits for them, closes
// the memory stores and then the event channel.
func (a *Agent) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	a.stop()
	a.Wait()
	a.stopLive()
	errs := []error{a.global.st.Close()}
	a.mu.Lock()
	for _, p := range a.projects {
		if p.store != nil {
			errs = append(errs, p.store.st.Close())
		}
	}
	a.mu.Unlock()
	a.events.close()
	return errors.Join(errs...)
}

// emit queues an event.
func (a *Agent) emit(e Event) { a.events.emit(e) }

// finishTurn removes the chat's turn from the running set, so the next Send
// is accepted, and then reports TurnDone.
func (a *Agent) finishTurn(chatID string, usage Usage, err error, cut, interrupted bool) {
	a.mu.Lock()
	delete(a.running, chatID)
	a.mu.Unlock()
	a.emit(TurnDone{ChatID: chatID, Usage: usage, Err: err, Cut: cut, At: a.now(), Interrupted: interrupted})
}

// recall runs auto-recall for a turn over the global store and the chat's
// project store, pinned entries left out (they are in the prompt anyway).
func (a *Agent) recall(c Chat, text string, proj *projectState, cfg Config) []RecalledHit {
	history := recentUserMessages(c.Messages, recentUserHistory)
	return bestHits(a.stores(proj), text, history, cfg.RecallTopK, true)
}

// recentUserMessages returns up to n user messages before the last
// message (the current one), oldest first, not reaching past a summary.
func recentUserMessages(msgs []Message, n int) []string {
	var out []string
	for i := len(msgs) - 2; i >= 0 && len(out) < n; i-- {
		if msgs[i].Role == RoleSummary {
			break
		}
		if msgs[i].Role == RoleUser {
			out = append(out, msgs[i].Text)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// markUsed records that recalled memories went into a prompt.
func (a *Agent) markUsed(hits []RecalledHit, proj *projectState) {
	var g, p []string
	for _, h := range hits {
		if h.Scope == ScopeProject {
			p = append(p, h.Entry.ID)
		} else {
			g = append(g, h.Entry.ID)
		}
	}
	if len(g) > 0 {
		_ = a.global.st.MarkUsed(g...) // bookkeeping only; a failure shows in the store's Err
	}
	if len(p) > 0 && proj != nil {
		_ = proj.store.st.MarkUsed(p...)
	}
}
