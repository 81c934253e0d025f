package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"engram/agent/chat"
	"engram/agent/watch"
	"engram/memory"
)

// live follows the files people change while the agent runs, by watching
// their directories: memory.json, AGENTS.md and config.json in the config
// dir, and for each project folder pinned to a chat its AGENTS.md and its
// memory.json under the config dir. One watch.Watcher serves them all; its
// callbacks run one at a time on its goroutine.
//
//   - memory.json and the conflict copies sync tools write beside it
//     (merged by Reload; a Notice gives the count): the echo of the
//     store's own write is ignored
//     (Store.ChangedOnDisk); any other change is merged by Store.Reload and
//     reported as MemoryChanged{External: true}. A file that does not parse
//     is left alone, the memories stay as they were, and MemoryChanged.Err
//     (a *memory.UnparsableError) says what is wrong, on every save, until
//     the file is fixed.
//   - AGENTS.md: reloaded and reported as InstructionsChanged; the next
//     turn's prompt uses the new text (one over MaxInstructionsSize is cut,
//     with a warning).
//   - the chats folder: a chat file another process created or changed is
//     merged in (chat.Store.Rescan) and reported as ChatChanged; the
//     agent's own writes report nothing.
//   - config.json: reloaded and used from the next turn on (a Notice says
//     so), with the environment's endpoint, key and model still winning
//     over it as configSource describes. A file that does not parse keeps
//     the current settings. The echo of SetConfig's own write changes
//     nothing, so it gives no Notice.
//
// The AGENTS.md of a project folder is followed from New when a saved chat
// pins it, or else from when it is pinned or first used, until Close: that
// only watches the folder. Its memory.json is followed once its store is
// opened (a turn or Memory), since until then nothing of it was read.
type live struct {
	w *watch.Watcher
}

// startLive starts following the config dir. Without a watcher (the system
// is out of inotify instances) the agent still works: files are re-read
// when a turn needs them (AGENTS.md) or when the store writes (memory.json),
// and a Notice says that live changes are not followed.
func (a *Agent) startLive() {
	w, err := watch.New(watch.Options{OnError: func(err error) {
		a.notice("", KeyNotFollowing, "Err", err)
	}})
	if err != nil {
		a.notice("", KeyOutsideChanges, "Err", err)
		return
	}
	a.live = &live{w: w}
	a.followMemory(a.opts.Paths.GlobalMemory(), a.global)
	a.followInstructions(a.instr)
	a.follow(a.opts.Paths.ConfigFile(), a.configFileChanged)
	a.followChats()
}

// followChats takes in the chat files other processes write.
func (a *Agent) followChats() {
	dir := a.opts.Paths.ChatsDir()
	_, err := a.live.w.SubscribeDir(dir, chat.IsChatFile, func(watch.Event) { a.chatFilesChanged() })
	if err != nil && !errors.Is(err, watch.ErrClosed) {
		a.notice("", KeyFileNotFollowed, "Path", dir, "Err", err)
	}
}

// chatFilesChanged merges what other processes wrote to the chat files and
// reports each chat that changed. A file that does not parse is skipped, as
// at start.
func (a *Agent) chatFilesChanged() {
	changed, _ := a.chats.Rescan()
	for _, id := range changed {
		a.emit(ChatChanged{ChatID: id})
	}
}

// followInstructions reloads an AGENTS.md when it changes and reports it,
// unless a turn's prompt has read the change already (and reported it).
func (a *Agent) followInstructions(in *Instructions) {
	a.follow(in.Path(), func() {
		if ev, changed := in.Reload(); changed {
			a.emit(ev)
		}
	})
}

// followMemory merges the outside changes of a store's file at path (the
// path it was opened with: Store.Path has symlinks resolved, and follow
// wants the link too), including one made between the store's Open and
// the start of the watch.
func (a *Agent) followMemory(path string, ss *storeState) {
	if a.live == nil {
		return
	}
	conflict := func(name string) bool { return memory.IsConflictCopy(filepath.Base(path), name) }
	a.followAlso(path, conflict, func() { a.memoryFileChanged(ss) })
	a.memoryFileChanged(ss)
}

// follow calls fn after the file at path changes. If path is a symlink
// (a dotfiles repo, a synced folder), the file it points to is followed
// too, since that is the one editors and sync tools change. A failure is
// a Notice. Without a watcher, or after Close, it does nothing.
func (a *Agent) follow(path string, fn func()) { a.followAlso(path, nil, fn) }

// followAlso is follow, with fn also called after a change of a file
// beside path whose name also accepts (nil: none).
func (a *Agent) followAlso(path string, also func(name string) bool, fn func()) {
	if a.live == nil {
		return
	}
	paths := []string{path}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			paths = append(paths, real)
		}
	}
	for _, p := range paths {
		_, err := a.live.w.SubscribeAlso(filepath.Dir(p), filepath.Base(p), also, func(watch.Event) { fn() })
		if err != nil && !errors.Is(err, watch.ErrClosed) {
			a.notice("", KeyFileNotFollowed, "Path", p, "Err", err)
		}
	}
}

// stopLive stops following files; no callback runs after it returns.
func (a *Agent) stopLive() {
	if a.live != nil {
		_ = a.live.w.Close() // only fails if the kernel refuses to close the inotify descriptor
	}
}

// memoryFileChanged merges an outside change of a store's file and reports
// it as one MemoryChanged{External: true} (the store's own change event for
// the reload is held back; so is that of an app write that happens during
// the reload, which this event covers too). A file that does not parse is
// left as it is, and so are the memories: the event carries the store's
// *memory.UnparsableError until the file is fixed.
func (a *Agent) memoryFileChanged(ss *storeState) {
	defer a.reportMerges(ss)
	if !ss.st.ChangedOnDisk() {
		return // the echo of the store's own write
	}
	ss.setReloading(true)
	err := ss.st.Reload()
	ss.setReloading(false)
	if serr := ss.st.Err(); serr != nil || err == nil {
		err = serr // the store's error state reads better than Reload's wrapping of it
	}
	a.emit(MemoryChanged{Scope: ss.scope, Dir: ss.dir, Err: err, External: true})
}

// reportMerges tells, as a Notice, of the conflict copies the store merged
// (on Open or on a reload) and of those it could not.
func (a *Agent) reportMerges(ss *storeState) {
	m := ss.st.TakeMergeReport()
	if m.Copies > 0 {
		a.notice("", KeyConflictsMerged, "Entries", m.Entries, "Copies", m.Copies)
	}
	for _, err := range m.Errs {
		a.notice("", KeyConflictLeft, "Err", err)
	}
}

// configFileChanged loads config.json again for the next turn.
func (a *Agent) configFileChanged() {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	file, err := LoadConfig(a.opts.Paths.ConfigFile(), nil)
	if err != nil {
		a.notice("", KeyConfigUnusable, "Err", err)
		return
	}
	cfg := a.src.inUse(file)
	a.mu.Lock()
	changed := a.cfg != cfg
	a.cfg = cfg
	a.mu.Unlock()
	if changed {
		a.notice("", KeyConfigChanged)
		a.applySemantic(cfg)
	}
}

// setReloading marks the start (on) and the end of a reload by
// memoryFileChanged.
func (ss *storeState) setReloading(on bool) {
	ss.mu.Lock()
	if on {
		ss.reloading++
	} else {
		ss.reloading--
	}
	ss.mu.Unlock()
}
