package agent

import (
	"engram/agent/distill"
	"engram/memory"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
)

// storeState is an open memory store with its pinned entries cached.
type storeState struct {
	st     *memory.Store
	scope  Scope
	dir    string
	forgot func([]memory.Entry) // takes a forgotten memory's text out of the chats

	mu        sync.Mutex
	pinned    []memory.Entry
	pinnedOK  bool
	reloading int // reloads in progress in memoryFileChanged, which reports their change itself
	// semWatching: a goroutine waits for the store's vectors from the
	// endpoint (settings.go); semAgain: the store changed meanwhile.
	semWatching, semAgain bool
}

// target is the store as the memory pipeline sees it.
func (ss *storeState) target() distill.Target {
	return distill.Target{Store: ss.st, Scope: ss.scope, Dir: ss.dir, Forgot: ss.forgot}
}

// projectState is a project folder pinned to a chat: its AGENTS.md, and
// its memory store once a turn or Memory needed it.
type projectState struct {
	dir   string
	instr *Instructions

	mu    sync.Mutex  // serialises opening the store
	store *storeState // nil until opened; set with mu and Agent.mu held
}

// watch wraps an opened store and turns its changes into MemoryChanged
// events. The change a reload of an outside edit makes is left to
// memoryFileChanged, which reports it once, as External.
func (a *Agent) watch(st *memory.Store, scope Scope, dir string) *storeState {
	ss := &storeState{st: st, scope: scope, dir: dir, forgot: a.scrubChats}
	st.OnChange(func() {
		ss.mu.Lock()
		ss.pinnedOK = false
		reloading := ss.reloading > 0
		ss.mu.Unlock()
		if !reloading {
			a.events.emit(MemoryChanged{Scope: scope, Dir: dir, Err: st.Err()})
		}
		a.watchSemantic(ss)
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

// Memory returns the global store, or the store of a project folder
// (opened on first use).
func (a *Agent) Memory(scope Scope, projectDir string) (*memory.Store, error) {
	ss, err := a.storeOf(scope, projectDir)
	if err != nil {
		return nil, err
	}
	return ss.st, nil
}

// storeOf is the state of the global store or of a project folder's.
func (a *Agent) storeOf(scope Scope, projectDir string) (*storeState, error) {
	switch scope {
	case ScopeGlobal:
		return a.global, nil
	case ScopeProject:
		p, err := a.project(projectDir)
		if err != nil {
			return nil, err
		}
		return p.store, nil
	}
	return nil, fmt.Errorf("memory: unknown scope %q", scope)
}

// scrubChats takes the text of every version of a forgotten memory out of
// the chats (see chat.Store.Scrub); what fails is reported as a Notice.
func (a *Agent) scrubChats(versions []memory.Entry) {
	if err := a.chats.Scrub(versions...); err != nil {
		a.notice("", KeyScrubFailed, "Err", err)
	}
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
	mopts := a.opts.Memory
	mopts.Embedder = a.embedder()
	st, err := memory.Open(path, mopts)
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
	a.watchSemantic(ss)
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

// stores are the stores a turn sees: global, then the project's.
func (a *Agent) stores(proj *projectState) []distill.Target {
	if proj == nil {
		return []distill.Target{a.global.target()}
	}
	return []distill.Target{a.global.target(), proj.store.target()}
}
