// Package distill is Engram's memory pipeline: after a turn it asks the
// model what of the turn is worth keeping and consolidates the answer with
// the memories already kept (adds, updates with history, forgets, or
// proposals to forget what a person wrote); in ask-first mode it holds
// suggestions for the person instead; Learn does the same over past chats.
// It changes memories only through memory.Store, reaches the model only
// through the Ask its host gives it, and reports through a Notice sink and
// the Outcome it returns.
package distill

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"engram/agent/chat"
	"engram/agent/llm"
	"engram/agent/prompts"
	"engram/memory"
)

// Target is an open memory store and where it belongs.
type Target struct {
	Store *memory.Store
	Scope chat.Scope
	Dir   string // the project folder of a ScopeProject store
	// Forgot, if set, is told every version (with its text) of a memory
	// that Forget forgot, so that the copies kept elsewhere go too.
	Forgot func(versions []memory.Entry)
}

// Forget forgets the live memory id of t with all its versions (their
// text leaves every file of the store at once, see memory.Store.Forget)
// and tells t.Forgot what they were: also when the store could not take
// them out of all its files (memory.ErrNotPurged, returned as well).
func Forget(t Target, id string) (memory.Entry, error) {
	versions := t.Store.History(id)
	e, err := t.Store.Forget(id)
	if err != nil && !errors.Is(err, memory.ErrNotPurged) {
		return e, err
	}
	if t.Forgot != nil {
		t.Forgot(versions)
	}
	return e, err
}

// Turn is a finished turn to consolidate, with the stores it saw.
type Turn struct {
	ChatID  string
	Mode    chat.CaptureMode // CaptureAuto or CaptureAsk
	Global  Target
	Project *Target // nil without a pinned project
	User    string  // the person's message
	Excerpt string  // the turn as the distiller reads it (see Excerpt)
}

// stores are the stores of the turn: global, then the project's.
func (t Turn) stores() []Target {
	if t.Project == nil {
		return []Target{t.Global}
	}
	return []Target{t.Global, *t.Project}
}

// store is the turn's store of scope: the project's when it has one, else
// the global one.
func (t Turn) store(scope chat.Scope) Target {
	if scope == chat.ScopeProject && t.Project != nil {
		return *t.Project
	}
	return t.Global
}

// Ask makes one model call with the host's model, retries and error
// handling.
type Ask func(ctx context.Context, msgs []llm.Message) (llm.Reply, error)

// Config is what a Pipeline needs from its host.
type Config struct {
	// Recall returns the best k hits for query over the stores, pinned
	// memories included, by a score comparable across stores.
	Recall func(stores []Target, query string, k int) []chat.Hit
	// Notice tells the person something (chatID "" when it is about no
	// chat), such as a suggestions file that could not be saved.
	Notice func(chatID, text string)
	// SuggestionsFile is where held suggestions are kept across restarts.
	SuggestionsFile string
	// ProposalsFile is where the forget proposals are kept across
	// restarts: which memory, never its text (see proposals.go).
	ProposalsFile string
	// Lookup finds a live memory of a store by ID, for the proposals read
	// back from ProposalsFile.
	Lookup func(scope chat.Scope, dir, id string) (memory.Entry, bool)
	Now    func() time.Time
}

// Pipeline distills turns into memories. It is safe for concurrent use.
type Pipeline struct {
	cfg Config

	mu              sync.Mutex
	loaded          bool // the suggestions file has been read
	sugg            []Suggestion
	proposalsLoaded bool // the proposals file has been read
	proposals       []Forgotten
}

// New returns a pipeline; nothing is read until it is used.
func New(cfg Config) *Pipeline {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Pipeline{cfg: cfg}
}

// Consolidate makes the distillation call of one turn and applies its
// answer: the existing memories related to the person's message are shown
// to the distiller by ID and date, and its operations are carried out (see
// carryOut). An answer in prose only means nothing is worth keeping.
func (p *Pipeline) Consolidate(ctx context.Context, ask Ask, t Turn) (Outcome, error) {
	shown := p.related(t.stores(), t.User)
	reply, err := ask(ctx, []llm.Message{
		{Role: "system", Content: prompts.Distill},
		{Role: "user", Content: distillInput(shown, t.User, t.Excerpt)},
	})
	if err != nil {
		return Outcome{}, err
	}
	cands, err := parseDistilled(reply.Text)
	if err != nil && !strings.ContainsAny(reply.Text, "[{") {
		return Outcome{}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	return p.carryOut(t, shown, cands), nil
}
