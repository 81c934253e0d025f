// Command engram is the Engram desktop app: a chat window on an
// OpenAI-compatible model with long-term memory.
//
// It resolves the XDG folders and the config (file, then the environment
// variables OPENAI_BASE_URL, OPENAI_API_KEY and ENGRAM_MODEL), opens the
// agent and shows the window.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"
	"github.com/adrg/xdg"

	"engram/agent"
	"engram/cmd/internal/version"
	"engram/memory"
	"engram/ui"
)

// gcPercent is the garbage collector's GOGC, unless the environment sets
// one: the heap grows to 1.5× what it holds before a collection, not Go's
// 2×. The window holds little (tens of MB) and is idle most of the time, so
// collecting more often costs little, and every MB the heap does not grow
// to is one the window does not keep resident.
const gcPercent = 50

// appID is the app's ID, the same as in FyneApp.toml.
const appID = "dev.engram.app"

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "engram:", err)
		os.Exit(1)
	}
}

// options is what the command line and the environment decide.
type options struct {
	paths       agent.Paths
	home        string // shown as ~ in folder names
	getenv      func(string) string
	do          func(func()) // nil: fyne.Do
	showVersion bool         // print the version and exit
}

// parseFlags reads the command line; the folders default to the XDG ones.
func parseFlags(args []string, getenv func(string) string) (options, error) {
	fs := flag.NewFlagSet("engram", flag.ContinueOnError)
	def := agent.DefaultPaths(xdg.ConfigHome, xdg.DataHome, xdg.StateHome)
	configDir := fs.String("config-dir", def.ConfigDir, "folder of config.json, AGENTS.md and the memories")
	dataDir := fs.String("data-dir", def.DataDir, "folder of the chats")
	showVersion := fs.Bool("version", false, "print the version and exit")
	stateDir := fs.String("state-dir", def.StateDir, "this device's own folder, never synced: its ID, the journal of memory changes, backups")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return options{
		paths:       agent.Paths{ConfigDir: *configDir, DataDir: *dataDir, StateDir: *stateDir},
		home:        xdg.Home,
		getenv:      getenv,
		showVersion: *showVersion,
	}, nil
}

// run starts the app and returns when its window is closed or ctx ends.
// With -version it prints "engram VERSION" to stdout instead.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	opts, err := parseFlags(args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if opts.showVersion {
		_, err := fmt.Fprintln(stdout, "engram", version.String())
		return err
	}
	return runApp(ctx, app.NewWithID(appID), opts)
}

// runApp draws the window on a first, with the chat list still empty, and
// then, off the UI goroutine, resolves the config (with no endpoint
// configured it looks for a local OpenAI-compatible server, up to 400 ms a
// candidate) and opens the agent (which reads the chats and the memories);
// once it is open the window starts and the chats fill in. A config file
// that does not load is reported in the window, which then starts with the
// defaults; an agent that does not open is reported there too.
func runApp(ctx context.Context, a fyne.App, opts options) error {
	do := opts.do
	if do == nil {
		do = fyne.Do
	}
	a.Settings().SetTheme(ui.Theme())
	w := a.NewWindow("Engram")
	w.Resize(fyne.NewSize(1280, 800))
	w.SetMaster()
	// The window's language is in the config file, read at once; the rest
	// of the config (and its errors) comes with the agent.
	early, _ := agent.LoadConfig(opts.paths.ConfigFile(), opts.getenv)
	b := &lateBackend{early: early}
	u := ui.New(w, b, ui.Options{Do: opts.do, Home: opts.home, Fonts: ui.FontCheck{FyneFont: opts.getenv("FYNE_FONT")}})
	w.Show()
	opened := make(chan *agent.Agent, 1)
	var openErr error
	var mu sync.Mutex // held while the window starts, and to mark it closed
	closed := false
	go func() {
		cfg, cfgErr := agent.ResolveConfig(ctx, opts.paths, opts.getenv, nil)
		ag, err := agent.New(agent.Options{Config: cfg, Paths: opts.paths, Getenv: opts.getenv,
			ToolServers: true, Version: version.String(), Memory: memory.Options{Embedder: memory.Builtin()}})
		openErr = err
		opened <- ag // before do: a window closed meanwhile still closes the agent
		do(func() {
			mu.Lock()
			defer mu.Unlock()
			if closed { // fyne.Do runs f at once while the app shuts down
				return
			}
			if err != nil {
				dialog.ShowError(fmt.Errorf("engram could not start: %w", err), w) // shown capitalised
				return
			}
			b.Agent = ag
			if cfgErr != nil {
				dialog.ShowError(fmt.Errorf("%w; starting with the default settings", cfgErr), w)
			}
			u.Start()
		})
		// What the start read (fonts, chat headers, the memory file) is
		// garbage now: hand its pages back at once, not when the
		// scavenger gets to them half a minute later.
		debug.FreeOSMemory()
	}()
	quit := context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	a.Run()
	quit()
	mu.Lock()
	closed = true
	mu.Unlock()
	ag := <-opened
	u.Close()
	if openErr != nil {
		return openErr
	}
	if err := ag.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}

// lateBackend is the window's backend (and the review panel's), the
// agent, which is set once it has opened and before the window starts
// (ui.UI.Start): the window makes no backend call before it starts but
// Config, for its language, which the early config answers.
type lateBackend struct {
	ui.AgentBackend
	early agent.Config
}

// Config is the agent's config, or the early one until the agent opened.
func (b *lateBackend) Config() agent.Config {
	if b.Agent == nil {
		return b.early
	}
	return b.Agent.Config()
}

var (
	_ ui.Backend  = (*lateBackend)(nil)
	_ ui.Reviewer = (*lateBackend)(nil)
)
