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
	"path/filepath"
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

// appID is the app's ID, the same as in FyneApp.toml.
const appID = "dev.engram.app"

var _ ui.Backend = (*agent.Agent)(nil)

func main() {
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
	state       string // this device's own state: the memory journal, backups ("" for none)
	home        string // shown as ~ in folder names
	getenv      func(string) string
	do          func(func()) // nil: fyne.Do
	showVersion bool         // print the version and exit
}

// parseFlags reads the command line; the folders default to the XDG ones.
func parseFlags(args []string, getenv func(string) string) (options, error) {
	fs := flag.NewFlagSet("engram", flag.ContinueOnError)
	def := agent.DefaultPaths(xdg.ConfigHome, xdg.DataHome)
	configDir := fs.String("config-dir", def.ConfigDir, "folder of config.json, AGENTS.md and the memories")
	dataDir := fs.String("data-dir", def.DataDir, "folder of the chats")
	showVersion := fs.Bool("version", false, "print the version and exit")
	stateDir := fs.String("state-dir", filepath.Join(xdg.StateHome, "engram"), "this device's own folder: the journal of memory changes, backups")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return options{
		paths:       agent.Paths{ConfigDir: *configDir, DataDir: *dataDir, StateDir: *stateDir},
		state:       *stateDir,
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

// runApp opens the agent and runs the window on a. With no endpoint
// configured it looks for a local OpenAI-compatible server first. A config
// file that does not load is reported in the window, which then starts with
// the defaults.
func runApp(ctx context.Context, a fyne.App, opts options) error {
	cfg, cfgErr := agent.ResolveConfig(ctx, opts.paths, opts.getenv, nil)
	ag, err := agent.New(agent.Options{Config: cfg, Paths: opts.paths, Getenv: opts.getenv,
		Memory: memory.Options{StateDir: opts.state}})
	if err != nil {
		return err
	}
	w := a.NewWindow("Engram")
	w.Resize(fyne.NewSize(1280, 800))
	w.SetMaster()
	u := ui.New(w, ag, ui.Options{Do: opts.do, Home: opts.home, Fonts: ui.FontCheck{FyneFont: opts.getenv("FYNE_FONT")}})
	if cfgErr != nil {
		dialog.ShowError(fmt.Errorf("%w; starting with the default settings", cfgErr), w)
	}
	w.Show()
	u.Start()
	quit := context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	a.Run()
	quit()
	u.Close()
	if err := ag.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}
