// Command engramctl is the headless Engram CLI (pure Go, no cgo):
//
//	engramctl [--raw] COMMAND ...
//	engramctl memory list|add|edit|rm|restore|pin|unpin|search|import|export ...
//	engramctl memory reindex [--model M]
//	engramctl bench-recall --memories FILE --queries FILE [--k N] [--dense builtin|none|endpoint]
//	engramctl version
//
// Other subcommands (chat, version) live in their own files and register themselves
// from init with register.
//
// Exit codes, for scripts:
//
//	0  success
//	1  error: bad input, unreadable or unwritable store, failed request
//	2  usage: unknown command or flag, missing argument
//	3  not found: no memory has the given ID
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/adrg/xdg"

	"engram/agent"
)

// Exit codes.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitNotFound = 3
)

// cliEnv is what a command may use of the outside world. Commands read
// environment variables through Getenv only, so tests can run them in
// process.
type cliEnv struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// command is one subcommand of engramctl.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, env *cliEnv) int
}

// commands holds the subcommands by name; files add theirs with register.
var commands = map[string]command{}

// register adds a subcommand. Call it from an init function of the file that
// implements the command (chat.go, benchrecall.go). A name registered twice
// is a programming error.
func register(name, summary string, run func(ctx context.Context, args []string, env *cliEnv) int) {
	if _, dup := commands[name]; dup {
		panic("engramctl: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run runs engramctl with its arguments (without the program name) and
// returns the exit code. Standard input is the process's.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return runIO(ctx, args, os.Stdin, stdout, stderr, getenv)
}

// runIO is run with standard input given, for tests. Unless the first
// argument is --raw, what the command writes goes through a textWriter
// (terminal.go), which drops the characters a terminal would act on.
func runIO(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && (args[0] == "--raw" || args[0] == "-raw") {
		args = args[1:]
	} else {
		stdout, stderr = &textWriter{w: stdout}, &textWriter{w: stderr}
	}
	env := &cliEnv{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		args = []string{"version"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "engramctl: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return cmd.run(ctx, args[1:], env)
}

// enginePaths are Engram's directories under XDG_CONFIG_HOME,
// XDG_DATA_HOME and XDG_STATE_HOME (see xdgHome and agent.DefaultPaths):
// the one place every command finds the stores, the chats and this
// device's state folder.
func enginePaths(getenv func(string) string) agent.Paths {
	return agent.DefaultPaths(xdgHome(getenv, "XDG_CONFIG_HOME", xdg.ConfigHome),
		xdgHome(getenv, "XDG_DATA_HOME", xdg.DataHome), xdgHome(getenv, "XDG_STATE_HOME", xdg.StateHome))
}

// xdgHome is the XDG base directory in the environment variable name, read
// through getenv, or def when the variable is unset or not an absolute path
// (the XDG spec says to ignore relative ones).
func xdgHome(getenv func(string) string, name, def string) string {
	if dir := getenv(name); filepath.IsAbs(dir) {
		return dir
	}
	return def
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: engramctl COMMAND [ARGS]\n"+
		"       engramctl --raw COMMAND [ARGS]\n\n"+
		"Control characters (but newline and tab) and bidi overrides in memories, answers and\n"+
		"messages are left out, so that no text can retitle, clear or drive the terminal;\n"+
		"--raw prints them as they are. JSON output keeps them either way, escaped.\n\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-13s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 error, 2 usage, 3 not found")
}
