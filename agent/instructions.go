package agent

import (
	"engram/agent/internal/textcut"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"engram/memory/durable"
)

// MaxInstructionsSize is the most of an AGENTS.md that goes into the prompt;
// a longer file is cut there, with a warning in the prompt and in its
// InstructionFile.
const MaxInstructionsSize = 64 << 10

// InstructionsFileName is the name of the instruction files.
const InstructionsFileName = "AGENTS.md"

// InstructionFile is the state of one AGENTS.md.
type InstructionFile struct {
	Path      string
	Found     bool
	Size      int64 // bytes on disk
	Truncated bool  // longer than MaxInstructionsSize; only the start is used
	Err       error // unreadable (a missing file is not an error)
}

// InstructionsInfo is the state of the instruction files of a turn: the
// global one and the pinned project folder's (Project.Path is "" without a
// project).
type InstructionsInfo struct {
	Global  InstructionFile
	Project InstructionFile
}

// Instructions loads one AGENTS.md and keeps its text current: Text re-reads
// the file when its size or modification time changed, Reload re-reads it
// unconditionally (the file watcher calls it). It is safe for concurrent use.
type Instructions struct {
	path string

	mu     sync.Mutex
	loaded bool
	text   string
	info   InstructionFile
	mod    time.Time
}

// NewInstructions returns a loader for the file at path. Nothing is read yet.
func NewInstructions(path string) *Instructions {
	return &Instructions{path: path, info: InstructionFile{Path: path}}
}

// Path is the file's path.
func (in *Instructions) Path() string { return in.path }

// Text returns the file's text for the prompt ("" when there is none),
// reading it first if it is new or changed on disk. changed reports that
// this call (re)loaded it with a different outcome.
func (in *Instructions) Text() (text string, changed bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.loaded || in.staleLocked() {
		changed = in.loadLocked()
	}
	return in.text, changed
}

// Info returns the file's state as last loaded.
func (in *Instructions) Info() InstructionFile {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.loaded {
		in.loadLocked()
	}
	return in.info
}

// Reload re-reads the file and returns its new state as an event, and
// whether it differs from what was loaded before (Text may have loaded the
// change already).
func (in *Instructions) Reload() (InstructionsChanged, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	changed := in.loadLocked()
	return in.eventLocked(), changed
}

// Event returns the file's current state as an InstructionsChanged event.
func (in *Instructions) Event() InstructionsChanged {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.loaded {
		in.loadLocked()
	}
	return in.eventLocked()
}

func (in *Instructions) eventLocked() InstructionsChanged {
	return InstructionsChanged{Path: in.path, Found: in.info.Found, Truncated: in.info.Truncated, Err: in.info.Err}
}

// staleLocked reports whether the file on disk differs from what was loaded.
func (in *Instructions) staleLocked() bool {
	st, err := os.Stat(in.path)
	if err != nil {
		return in.info.Found || (in.info.Err != nil) != !errors.Is(err, fs.ErrNotExist)
	}
	return !in.info.Found || st.Size() != in.info.Size || !st.ModTime().Equal(in.mod)
}

// loadLocked reads the file and reports whether the text or state changed.
func (in *Instructions) loadLocked() bool {
	old, oldInfo := in.text, in.info
	in.loaded = true
	in.text, in.mod = "", time.Time{}
	in.info = InstructionFile{Path: in.path}
	f, err := os.Open(in.path)
	if errors.Is(err, fs.ErrNotExist) {
		return old != "" || oldInfo != in.info
	}
	if err != nil {
		in.info.Err = fmt.Errorf("read %s: %w", in.path, err)
		return true
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		if err == nil {
			err = errors.New("is a directory")
		}
		in.info.Err = fmt.Errorf("read %s: %w", in.path, err)
		return true
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxInstructionsSize+1))
	if err != nil {
		in.info.Err = fmt.Errorf("read %s: %w", in.path, err)
		return true
	}
	in.info.Found, in.info.Size, in.mod = true, st.Size(), st.ModTime()
	text := string(b)
	if len(b) > MaxInstructionsSize || st.Size() > MaxInstructionsSize {
		in.info.Truncated = true
		text = textcut.UTF8(text, MaxInstructionsSize)
		if i := strings.LastIndexByte(text, '\n'); i > MaxInstructionsSize-1024 {
			text = text[:i]
		}
		text += fmt.Sprintf("\n\n[Engram: %s is %d KiB; only its first %d KiB is used. Shorten it.]",
			filepath.Base(in.path), st.Size()>>10, MaxInstructionsSize>>10)
	}
	in.text = strings.TrimSpace(text)
	return in.text != old || in.info.Truncated != oldInfo.Truncated || in.info.Found != oldInfo.Found ||
		(oldInfo.Err != nil)
}

// ReadInstructions returns the whole text of the AGENTS.md at path, as an
// editor shows it ("" and no error when there is no file yet; the prompt
// uses at most MaxInstructionsSize of it). path is one that Instructions
// reported: the global file or a pinned project folder's.
func (a *Agent) ReadInstructions(path string) (string, error) {
	in, err := a.instructionsAt(path)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(in.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read instructions: %w", err)
	}
	return string(b), nil
}

// SaveInstructions replaces the AGENTS.md at path with text atomically, so
// that a reader sees the old or the new file and never a part, and reloads
// it: the next turn uses the new text, and a change is reported as an
// InstructionsChanged event. path is one that Instructions reported.
func (a *Agent) SaveInstructions(path, text string) error {
	in, err := a.instructionsAt(path)
	if err != nil {
		return err
	}
	if err := durable.WriteFileAtomic(in.Path(), []byte(text)); err != nil {
		return fmt.Errorf("save instructions: %w", err)
	}
	if ev, changed := in.Reload(); changed {
		a.emit(ev)
	}
	return nil
}

// instructionsAt returns the loader of the AGENTS.md at path: the global
// one or that of a project folder Instructions or a chat has pinned. The
// agent reads and writes no other file for the editor.
func (a *Agent) instructionsAt(path string) (*Instructions, error) {
	path = filepath.Clean(path)
	if path == filepath.Clean(a.instr.Path()) {
		return a.instr, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.projects {
		if path == filepath.Clean(p.instr.Path()) {
			return p.instr, nil
		}
	}
	return nil, fmt.Errorf("instructions %s: not an AGENTS.md Engram follows", path)
}
