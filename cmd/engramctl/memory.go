package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"engram/memory"
)

func init() {
	register("memory", "list, add, edit, remove, forget, pin, search, import and export memories", memoryCmd)
}

const memoryUsage = `usage: engramctl memory SUBCOMMAND [flags] [args]

  list    [--all]                                 list memories (--all: history and deleted too)
  add     [--kind K] [--pin] [--source S] [--force] TEXT...
                                                  add a memory (TEXT "-" or none: read stdin);
                                                  a text that looks like a secret needs --force
  edit    ID [--kind K] [--text T | TEXT...] [--force]
                                                  change a memory's text or kind
  rm      ID...                                   delete memories: the text leaves memory.json and
                                                  goes to this device's trash for 30 days
  restore ID...                                   undo rm, from the trash
  trash   [empty]                                 list the trash (last removed first), or empty it
  forget  ID... | --secrets                       forget for good: the text leaves every file Engram
                                                  keeps (memory.json, journal, backups, trash, chats);
                                                  --secrets: every memory that looks like a secret
  pin     ID...                                   always inject, never evict
  unpin   ID...
  search  [--k N] QUERY...                        rank memories for a query (last word: a prefix)
  import  [--force] [FILE|-]                      merge another memory.json or an export by ID;
                                                  add legacy JSON or JSON Lines as new memories
                                                  (entries that look like secrets are listed, not
                                                  imported, unless --force)
  export  [--all] [--jsonl] [FILE]                write memories as JSON (or JSON Lines)
  learn   --chat ID | --all [--delay D] [--restart]
                                                  consolidate memories from past chats (resumable)
  repair                                          rewrite a memory.json that does not parse from
                                                  what can be read of it (the broken file is kept)
  reindex [--model M]                             embed every memory with the endpoint's embedding
                                                  model (default: semantic_recall of config.json),
                                                  cached in the state folder (resumable)

flags of every subcommand:
  --store PATH    the memory file (default $XDG_CONFIG_HOME/engram/memory.json)
  --project DIR   the store of a project folder ($XDG_CONFIG_HOME/engram/projects/<slug>/memory.json)
  --json          machine-readable output

This device's journal of changes, its ID, its trash and the backups of merged
conflict copies and repaired files live in its state folder, which is never
synced: $XDG_STATE_HOME/engram (macOS, Windows: engram-state beside the engram
folder).

IDs may be abbreviated to a unique prefix. Plain output is one memory per line:
ID, kind, flags (pinned, superseded, deleted or -), text with \n, \t and \\ escaped,
separated by tabs. Exit codes: 0 ok, 1 error, 2 usage, 3 not found.
`

// memoryFlags are the flags every memory subcommand takes.
type memoryFlags struct {
	fs      *flag.FlagSet
	store   string
	project string
	json    bool
}

func newMemoryFlags(name string) *memoryFlags {
	mf := &memoryFlags{fs: flag.NewFlagSet("engramctl memory "+name, flag.ContinueOnError)}
	mf.fs.SetOutput(io.Discard)
	mf.fs.StringVar(&mf.store, "store", "", "memory file")
	mf.fs.StringVar(&mf.project, "project", "", "project folder")
	mf.fs.BoolVar(&mf.json, "json", false, "JSON output")
	return mf
}

// parse parses flags and positional arguments in any order; everything
// after "--" is positional.
func (mf *memoryFlags) parse(args []string) ([]string, error) {
	var rest []string
	if i := indexOf(args, "--"); i >= 0 {
		args, rest = args[:i], args[i+1:]
	}
	var pos []string
	for {
		if err := mf.fs.Parse(args); err != nil {
			return nil, err
		}
		if mf.fs.NArg() == 0 {
			break
		}
		pos = append(pos, mf.fs.Arg(0))
		args = mf.fs.Args()[1:]
	}
	return append(pos, rest...), nil
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// storePath resolves the memory file: --store, else the project's store
// for --project, else the global store, under $XDG_CONFIG_HOME/engram.
func (mf *memoryFlags) storePath(getenv func(string) string) (string, error) {
	if mf.store != "" && mf.project != "" {
		return "", errors.New("--store and --project exclude each other")
	}
	if mf.store != "" {
		return mf.store, nil
	}
	paths := enginePaths(getenv)
	if mf.project != "" {
		return paths.ProjectMemory(mf.project), nil
	}
	return paths.GlobalMemory(), nil
}

// memoryRun is the state of one memory subcommand.
type memoryRun struct {
	ctx   context.Context
	name  string
	env   *cliEnv
	flags *memoryFlags
	args  []string
	store *memory.Store
}

// memorySubs are the memory subcommands. Each registers its own flags
// beside the common ones and returns the function to run after parsing.
var memorySubs = map[string]func(r *memoryRun) func() int{
	"list":    memoryList,
	"add":     memoryAdd,
	"edit":    memoryEdit,
	"rm":      func(r *memoryRun) func() int { return memoryEach(r, (*memory.Store).Remove) },
	"restore": func(r *memoryRun) func() int { return memoryEach(r, (*memory.Store).Restore) },
	"trash":   memoryTrash,
	"forget":  memoryForget,
	"pin":     func(r *memoryRun) func() int { return memoryEach(r, setPin(true)) },
	"unpin":   func(r *memoryRun) func() int { return memoryEach(r, setPin(false)) },
	"search":  memorySearch,
	"import":  memoryImport,
	"export":  memoryExport,
	"learn":   memoryLearn,
	"repair":  memoryRepair,
}

func memoryCmd(ctx context.Context, args []string, env *cliEnv) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, memoryUsage)
		return exitUsage
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stdout, memoryUsage)
		return exitOK
	}
	sub, ok := memorySubs[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "engramctl memory: unknown subcommand %q\n\n%s", args[0], memoryUsage)
		return exitUsage
	}
	r := &memoryRun{ctx: ctx, name: args[0], env: env, flags: newMemoryFlags(args[0])}
	do := sub(r)
	pos, err := r.flags.parse(args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, memoryUsage)
		return exitOK
	}
	if err != nil {
		return r.usageError("%v", err)
	}
	r.args = pos
	return do()
}

// usageError reports a usage error and returns exitUsage.
func (r *memoryRun) usageError(format string, a ...any) int {
	fmt.Fprintf(r.env.Stderr, "engramctl memory %s: %s\nrun 'engramctl memory help' for usage\n", r.name, fmt.Sprintf(format, a...))
	return exitUsage
}

// fail reports an error and returns its exit code: exitNotFound for
// memory.ErrNotFound, exitError for anything else.
func (r *memoryRun) fail(err error) int {
	fmt.Fprintf(r.env.Stderr, "engramctl memory %s: %v\n", r.name, err)
	if errors.Is(err, memory.ErrNotFound) {
		return exitNotFound
	}
	return exitError
}

// open opens the store; on failure it reports and returns the exit code.
// A store that opened in an error state (a file that does not parse, left
// as it is) is usable: the error is shown as a warning, and so are the
// conflict copies merged on the way.
func (r *memoryRun) open() int {
	path, err := r.flags.storePath(r.env.Getenv)
	if err != nil {
		return r.usageError("%v", err)
	}
	s, err := memory.Open(path, memory.Options{StateDir: enginePaths(r.env.Getenv).StateDir})
	if err != nil {
		return r.fail(err)
	}
	if err := s.Err(); err != nil {
		fmt.Fprintf(r.env.Stderr, "engramctl: warning: %v\n", err)
	}
	r.store = s
	r.reportMerges()
	return exitOK
}

// reportMerges tells of conflict copies the store merged.
func (r *memoryRun) reportMerges() {
	m := r.store.TakeMergeReport()
	if m.Copies > 0 {
		fmt.Fprintf(r.env.Stderr, "engramctl: merged %d memories from %d conflict copies (moved to the backups)\n", m.Entries, m.Copies)
	}
	for _, err := range m.Errs {
		fmt.Fprintf(r.env.Stderr, "engramctl: warning: conflict copy left in place: %v\n", err)
	}
}

// saved finishes a command that changed memories: when the file does not
// parse or could not be written (read-only, disk full) the change is kept
// in this device's journal only, which is said, with exit code 1; at the
// cap, that memory is full is said.
func (r *memoryRun) saved() int {
	if err := r.store.Err(); err != nil {
		fmt.Fprintf(r.env.Stderr, "engramctl memory %s: saved to the journal only, %s was not written: %v\n", r.name, filepath.Base(r.store.Path()), err)
		return exitError
	}
	if n, max := r.store.Usage(); n >= max {
		fmt.Fprintf(r.env.Stderr, "engramctl: %v\n", &memory.FullError{Stored: n, Max: max})
	}
	return exitOK
}

func (r *memoryRun) close() {
	if r.store != nil {
		r.store.Close()
	}
}

// resolve turns an ID or unique ID prefix into an ID.
func (r *memoryRun) resolve(arg string) (string, error) {
	if _, ok := r.store.Get(arg); ok {
		return arg, nil
	}
	var matches []string
	if arg != "" {
		for _, e := range r.store.All() {
			if strings.HasPrefix(e.ID, arg) {
				matches = append(matches, e.ID)
			}
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w: %s", memory.ErrNotFound, arg)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("ID prefix %q is ambiguous: %s", arg, strings.Join(matches, ", "))
}

// printEntries writes entries as JSON (an array) or as tab-separated lines.
func (r *memoryRun) printEntries(es []memory.Entry) {
	if r.flags.json {
		if es == nil {
			es = []memory.Entry{}
		}
		r.writeJSON(es)
		return
	}
	for _, e := range es {
		fmt.Fprintf(r.env.Stdout, "%s\t%s\t%s\t%s\n", e.ID, e.Kind, entryFlags(e), escapeText(e.Text))
	}
}

func (r *memoryRun) writeJSON(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	r.env.Stdout.Write(escapeJSON(b.Bytes()))
}

func entryFlags(e memory.Entry) string {
	var fl []string
	if e.Pinned {
		fl = append(fl, "pinned")
	}
	if e.SupersededBy != "" {
		fl = append(fl, "superseded")
	}
	if !e.Deleted.IsZero() {
		fl = append(fl, "deleted")
	}
	if len(fl) == 0 {
		return "-"
	}
	return strings.Join(fl, ",")
}

var textEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`)

func escapeText(s string) string { return textEscaper.Replace(s) }
