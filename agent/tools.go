package agent

import (
	"sync"

	"engram/agent/distill"
	"engram/agent/llm"
	"engram/agent/memtools"
)

// The memory tools, by the names the model calls.
const (
	ToolMemoryWrite  = memtools.Write
	ToolMemorySearch = memtools.Search
	ToolMemoryUpdate = memtools.Update
	ToolMemoryForget = memtools.Forget
)

// runTool executes a tool call of a turn through the memory tools and
// reports what it changed besides adding. The error, if any, goes back to
// the model.
func (a *Agent) runTool(ts *turnState, call llm.ToolCall) (string, error) {
	s := memtools.Session{
		Global:  a.global.target(),
		Shown:   chatShown{seen: &a.seen, chatID: ts.chatID},
		Recall:  recallAll,
		Propose: a.pipe.Propose,
	}
	if ts.project != nil {
		pt := ts.project.store.target()
		s.Project = &pt
	}
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
