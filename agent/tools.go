package agent

import (
	"context"
	"sync"

	"engram/agent/distill"
	"engram/agent/llm"
	"engram/agent/memtools"
	"engram/memory"
)

// The memory tools, by the names the model calls.
const (
	ToolMemoryWrite  = memtools.Write
	ToolMemorySearch = memtools.Search
	ToolMemoryUpdate = memtools.Update
	ToolMemoryForget = memtools.Forget
)

// runTool executes a tool call of a turn: an MCP server's tool (see
// runServerTool), or else a memory tool, reporting what it changed
// besides adding. The error, if any, goes back to the model.
func (a *Agent) runTool(ctx context.Context, ts *turnState, call llm.ToolCall) (string, error) {
	if t, ok := a.serverTool(call.Name); ok {
		return a.runServerTool(ctx, ts, call, t)
	}
	s := a.toolSession(ts.project, chatShown{seen: &a.seen, chatID: ts.chatID})
	s.CaptureOff = a.memoryOff(a.Config(), ts.chatID)
	out, rv, err := s.Run(call.Name, call.Args)
	if len(rv.Updated)+len(rv.Forgotten)+len(rv.Proposed) > 0 {
		rv.ChatID = ts.chatID
		a.report(ts.chatID, distill.Outcome{Revised: rv})
	}
	return out, err
}

// seenIDs are the memory IDs shown to the model, by chat: recalled into
// its prompt, found by memory_search or written by memory_write. The model
// may only update or forget those.
type seenIDs struct {
	mu  sync.Mutex
	ids map[string]map[string]bool
}

func (s *seenIDs) add(chatID string, ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]map[string]bool{}
	}
	if s.ids[chatID] == nil {
		s.ids[chatID] = map[string]bool{}
	}
	for _, id := range ids {
		s.ids[chatID][id] = true
	}
}

func (s *seenIDs) has(chatID, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[chatID][id]
}

// chatShown is the memtools.Shown of one chat.
type chatShown struct {
	seen   *seenIDs
	chatID string
}

func (c chatShown) Add(ids ...string)  { c.seen.add(c.chatID, ids...) }
func (c chatShown) Has(id string) bool { return c.seen.has(c.chatID, id) }

// toolSession is the memory tools' access to the global store and, with
// proj, the project's.
func (a *Agent) toolSession(proj *projectState, shown memtools.Shown) memtools.Session {
	s := memtools.Session{Global: a.global.target(), Shown: shown, Recall: recallAll, Propose: a.pipe.Propose,
		Suggest: func(target distill.Shown, kind memory.Kind, text string) {
			a.pipe.SuggestUpdate("", target, kind, text)
			a.emit(SuggestionsChanged{})
		}}
	if proj != nil {
		pt := proj.store.target()
		s.Project = &pt
	}
	return s
}

// ToolSession is access to memory through the memory tools, with the rules
// the app's chats have, for a client outside them (the MCP server): the
// global store and, with projectDir, that folder's; shown is the set of
// memories the client was shown, which are those it may change. Where the
// capture setting is off, the tools save nothing (see memoryOff).
func (a *Agent) ToolSession(projectDir string, shown memtools.Shown) (memtools.Session, error) {
	var proj *projectState
	if projectDir != "" {
		p, err := a.project(projectDir)
		if err != nil {
			return memtools.Session{}, err
		}
		proj = p
	}
	s := a.toolSession(proj, shown)
	s.CaptureOff = a.Config().Capture == CaptureOff
	return s, nil
}
