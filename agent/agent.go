package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"engram/agent/chat"
	"engram/agent/distill"
	"engram/agent/llm"
	"engram/agent/llm/openai"
	"engram/agent/mcptools"
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
	// defaults to the agent's, StateDir to Paths.StateDir).
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
	// ToolServers starts the MCP servers of Paths.MCPConfig and offers
	// their tools in every turn, each call asked of the person with a
	// ToolApproval unless its server is "always" (the app and engramctl
	// chat; off for the other commands).
	ToolServers bool
	// Version is the program's version, as the MCP servers are told.
	Version string
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

	toolServers *mcptools.Manager // the MCP servers of mcp.json; nil unless Options.ToolServers
	approvals   approvals         // their calls waiting for the person (toolservers.go)

	sem semanticState // the embedder of semantic recall (settings.go)
}

// errClosed is returned by the methods that need the agent after Close.
var errClosed = errors.New("agent is closed")

// New opens the global memory store and the saved chats. Nothing is sent
// over the network. A config without an endpoint is fine: turns then end
// with CodeNoEndpoint. Every store the agent opens keeps its journal and
// device ID in Paths.StateDir, which is required like the other two.
func New(opts Options) (*Agent, error) {
	if opts.Paths.ConfigDir == "" || opts.Paths.DataDir == "" || opts.Paths.StateDir == "" {
		return nil, errors.New("new agent: Paths.ConfigDir, Paths.DataDir and Paths.StateDir are required")
	}
	if opts.Memory.StateDir == "" {
		opts.Memory.StateDir = opts.Paths.StateDir
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
		Recall:          recallAll,
		Notice:          func(chatID, text string) { a.emit(Notice{ChatID: chatID, Text: text}) },
		SuggestionsFile: filepath.Join(opts.Paths.DataDir, "suggestions.json"),
		ProposalsFile:   filepath.Join(opts.Paths.DataDir, "forget-proposals.json"),
		Lookup: func(scope Scope, dir, id string) (memory.Entry, bool) {
			ss, err := a.storeOf(scope, dir)
			if err != nil {
				return memory.Entry{}, false
			}
			return ss.st.Get(id)
		},
		Now: opts.Now,
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
		w := words(KeyChatUnreadable, "Err", err)
		a.events.emit(Notice{Text: w.English(), Words: w})
	}
	a.global = a.watch(st, ScopeGlobal, "")
	a.applySemantic(a.cfg)
	a.startLive()
	if opts.ToolServers {
		a.startToolServers()
	}
	for _, dir := range a.RecentProjects() {
		_, _ = a.pinned(dir) // follow its AGENTS.md; only fails once closed
	}
	if err := st.Err(); err != nil {
		a.events.emit(MemoryChanged{Scope: ScopeGlobal, Err: err})
	}
	return a, nil
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
	a.applySemantic(cfg)
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
	if a.toolServers != nil {
		a.toolServers.Close()
	}
	errs := []error{a.global.st.Close()}
	a.mu.Lock()
	for _, p := range a.projects {
		if p.store != nil {
			errs = append(errs, p.store.st.Close())
		}
	}
	a.mu.Unlock()
	errs = append(errs, a.closeSemantic())
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
