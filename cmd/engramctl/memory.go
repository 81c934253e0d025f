package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adrg/xdg"

	"engram/memory"
)

func init() {
	register("memory", "list, add, edit, remove, pin, search, import and export memories", memoryCmd)
}

const memoryUsage = `usage: engramctl memory SUBCOMMAND [flags] [args]

  list    [--all]                                 list memories (--all: history and deleted too)
  add     [--kind K] [--pin] [--source S] [--force] TEXT...
                                                  add a memory (TEXT "-" or none: read stdin);
                                                  a text that looks like a secret needs --force
  edit    ID [--kind K] [--text T | TEXT...] [--force]
                                                  change a memory's text or kind
  rm      ID...                                   delete memories (kept 30 days as tombstones)
  restore ID...                                   undo rm
  pin     ID...                                   always inject, never evict
  unpin   ID...
  search  [--k N] QUERY...                        rank memories for a query (last word: a prefix)
  import  [FILE|-]                                merge another memory.json or an export by ID;
                                                  add legacy JSON or JSON Lines as new memories
  export  [--all] [--jsonl] [FILE]                write memories as JSON (or JSON Lines)
  learn   --chat ID | --all [--delay D] [--restart]
                                                  consolidate memories from past chats (resumable)
  repair                                          rewrite a memory.json that does not parse from
                                                  what can be read of it (the broken file is kept)

flags of every subcommand:
  --store PATH    the memory file (default $XDG_CONFIG_HOME/engram/memory.json)
  --project DIR   the store of a project folder ($XDG_CONFIG_HOME/engram/projects/<slug>/memory.json)
  --json          machine-readable output

This device's journal of changes, its ID and the backups of merged conflict
copies and repaired files live in $XDG_STATE_HOME/engram.

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
	dir := filepath.Join(xdgHome(getenv, "XDG_CONFIG_HOME", xdg.ConfigHome), "engram")
	if mf.project != "" {
		return memory.ProjectPath(dir, mf.project), nil
	}
	return memory.GlobalPath(dir), nil
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
	state := filepath.Join(xdgHome(r.env.Getenv, "XDG_STATE_HOME", xdg.StateHome), "engram")
	s, err := memory.Open(path, memory.Options{StateDir: state})
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

// saved finishes a command that changed memories: with the file broken
// the change is kept in the journal only, which is said, with exit code 1;
// at the cap, that memory is full is said.
func (r *memoryRun) saved() int {
	if err := r.store.Err(); errors.Is(err, memory.ErrUnparsable) {
		fmt.Fprintf(r.env.Stderr, "engramctl memory %s: kept in this device's journal, not in the file: %v\n", r.name, err)
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
	enc := json.NewEncoder(r.env.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
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

func memoryList(r *memoryRun) func() int {
	all := r.flags.fs.Bool("all", false, "include history and deleted memories")
	return func() int {
		if len(r.args) > 0 {
			return r.usageError("unexpected argument %q", r.args[0])
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		if *all {
			r.printEntries(r.store.All())
		} else {
			r.printEntries(r.store.List())
		}
		return exitOK
	}
}

// textArg is the text given as arguments, or standard input when there are
// none or just "-".
func (r *memoryRun) textArg(args []string) (string, error) {
	if len(args) == 0 || len(args) == 1 && args[0] == "-" {
		data, err := io.ReadAll(io.LimitReader(r.env.Stdin, memory.MaxFileSize))
		if err != nil {
			return "", fmt.Errorf("read standard input: %w", err)
		}
		return string(data), nil
	}
	return strings.Join(args, " "), nil
}

func memoryAdd(r *memoryRun) func() int {
	kind := r.flags.fs.String("kind", "fact", "preference, correction, lesson or fact (or an alias)")
	pin := r.flags.fs.Bool("pin", false, "pin the memory")
	source := r.flags.fs.String("source", "user", "user, tool, auto or import")
	force := r.flags.fs.Bool("force", false, "save a text that looks like a secret")
	return func() int {
		text, err := r.textArg(r.args)
		if err != nil {
			return r.fail(err)
		}
		if err := confirmSecret(text, *force); err != nil {
			return r.fail(err)
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		e, isNew, err := r.store.Add(memory.Entry{Kind: memory.Kind(*kind), Text: text, Pinned: *pin, Source: memory.Source(*source)})
		if err != nil {
			return r.fail(err)
		}
		if r.flags.json {
			r.writeJSON(struct {
				Entry memory.Entry `json:"entry"`
				New   bool         `json:"new"`
			}{e, isNew})
			return r.saved()
		}
		if !isNew {
			fmt.Fprintf(r.env.Stderr, "engramctl memory add: already remembered as %s (%s)\n", e.ID, e.Kind)
		}
		fmt.Fprintln(r.env.Stdout, e.ID)
		return r.saved()
	}
}

func memoryEdit(r *memoryRun) func() int {
	kind := r.flags.fs.String("kind", "", "new kind")
	text := r.flags.fs.String("text", "", "new text")
	force := r.flags.fs.Bool("force", false, "save a text that looks like a secret")
	return func() int {
		if len(r.args) == 0 {
			return r.usageError("missing ID")
		}
		var c memory.Change
		switch {
		case len(r.args) > 1 && *text != "":
			return r.usageError("give the text either as --text or as arguments")
		case len(r.args) > 1:
			c.Text = ptr(strings.Join(r.args[1:], " "))
		case *text != "":
			c.Text = text
		}
		if *kind != "" {
			c.Kind = ptr(memory.Kind(*kind))
		}
		if c.Text == nil && c.Kind == nil {
			return r.usageError("nothing to change: give a new text or --kind")
		}
		if c.Text != nil {
			if err := confirmSecret(*c.Text, *force); err != nil {
				return r.fail(err)
			}
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		id, err := r.resolve(r.args[0])
		if err != nil {
			return r.fail(err)
		}
		e, err := r.store.Update(id, c)
		if err != nil {
			return r.fail(err)
		}
		r.printOne(e)
		return r.saved()
	}
}

// printOne prints a changed entry: its ID, or the entry with --json.
func (r *memoryRun) printOne(e memory.Entry) {
	if r.flags.json {
		r.writeJSON(e)
		return
	}
	fmt.Fprintln(r.env.Stdout, e.ID)
}

func ptr[T any](v T) *T { return &v }

// confirmSecret refuses a text that looks like a secret unless the person
// confirmed it with --force (memories are plain, syncable files).
func confirmSecret(text string, force bool) error {
	if what, ok := memory.Secret(text); ok && !force {
		return fmt.Errorf("%w (%s): memories are stored in plain text and may be synced; "+
			"run again with --force to keep it anyway", memory.ErrSecret, what)
	}
	return nil
}

func setPin(on bool) func(s *memory.Store, id string) error {
	return func(s *memory.Store, id string) error {
		_, err := s.Update(id, memory.Change{Pinned: &on})
		return err
	}
}

// memoryEach applies op to every ID argument; the exit code is that of the
// worst failure (not found 3, other errors 1).
func memoryEach(r *memoryRun, op func(s *memory.Store, id string) error) func() int {
	return func() int {
		if len(r.args) == 0 {
			return r.usageError("missing ID")
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		code := exitOK
		var done []memory.Entry
		for _, arg := range r.args {
			id, err := r.resolve(arg)
			if err == nil {
				err = op(r.store, id)
			}
			if err != nil {
				if c := r.fail(err); c == exitError || code == exitOK {
					code = c
				}
				continue
			}
			e, _ := r.store.Get(id)
			done = append(done, e)
		}
		if r.flags.json {
			r.printEntries(done)
		} else {
			for _, e := range done {
				fmt.Fprintln(r.env.Stdout, e.ID)
			}
		}
		if code == exitOK && len(done) > 0 {
			return r.saved()
		}
		return code
	}
}

func memorySearch(r *memoryRun) func() int {
	k := r.flags.fs.Int("k", 5, "hits at most")
	return func() int {
		query := strings.TrimSpace(strings.Join(r.args, " "))
		if query == "" {
			return r.usageError("missing query")
		}
		if *k <= 0 {
			return r.usageError("--k must be positive")
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		hits := r.store.Search(query, *k)
		if r.flags.json {
			type hit struct {
				memory.Entry
				Score float64  `json:"score"`
				Terms []string `json:"terms,omitempty"`
			}
			out := make([]hit, len(hits))
			for i, h := range hits {
				out[i] = hit{h.Entry, h.Score, h.Terms}
			}
			r.writeJSON(out)
			return exitOK
		}
		for _, h := range hits {
			fmt.Fprintf(r.env.Stdout, "%s\t%.3f\t%s\t%s\n", h.Entry.ID, h.Score, h.Entry.Kind, escapeText(h.Entry.Text))
		}
		return exitOK
	}
}

// importSummary is the outcome of an import, printed with --json.
type importSummary struct {
	Added      int           `json:"added"`
	Duplicates int           `json:"duplicates"`
	Skipped    int           `json:"skipped"` // history and deleted entries in the input
	Invalid    []importError `json:"invalid"`
}

type importError struct {
	Entry int    `json:"entry"` // 1-based, in input order
	Text  string `json:"text"`
	Error string `json:"error"`
}

func memoryImport(r *memoryRun) func() int {
	return func() int {
		if len(r.args) > 1 {
			return r.usageError("import one file at a time")
		}
		in, fallback := r.env.Stdin, time.Now()
		if len(r.args) == 1 && r.args[0] != "-" {
			f, err := os.Open(r.args[0])
			if err != nil {
				return r.fail(fmt.Errorf("read input: %w", err))
			}
			defer f.Close()
			if fi, err := f.Stat(); err == nil {
				fallback = fi.ModTime()
			}
			in = f
		}
		// Read no more than a store may hold: a larger input is refused.
		data, err := io.ReadAll(io.LimitReader(in, memory.MaxFileSize+1))
		if err != nil {
			return r.fail(fmt.Errorf("read input: %w", err))
		}
		if len(data) > memory.MaxFileSize {
			return r.fail(fmt.Errorf("read input: %w", memory.ErrTooLarge))
		}
		entries, err := memory.ParseImport(data, fallback)
		if err != nil {
			return r.fail(fmt.Errorf("parse input: %w", err))
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		if n, ok, err := r.store.MergeFile(data, fallback); ok {
			if err != nil {
				return r.fail(err)
			}
			if r.flags.json {
				r.writeJSON(struct {
					Merged int `json:"merged"`
				}{n})
			} else {
				fmt.Fprintf(r.env.Stdout, "merged %d memories by ID\n", n)
			}
			return r.saved()
		}
		var sum importSummary
		var batch []memory.Entry
		var index []int
		for i, e := range entries {
			if !e.Live() {
				sum.Skipped++
				continue
			}
			if _, taken := r.store.Get(e.ID); taken {
				e.ID = "" // same ID, different memory: give it a new one
			}
			e.Source = memory.SourceImport
			batch = append(batch, e)
			index = append(index, i+1)
		}
		res, err := r.store.AddAll(batch)
		if err != nil {
			return r.fail(err)
		}
		for i, a := range res {
			switch {
			case a.Err != nil:
				sum.Invalid = append(sum.Invalid, importError{Entry: index[i], Text: clip(batch[i].Text, 60), Error: a.Err.Error()})
			case a.New:
				sum.Added++
			default:
				sum.Duplicates++
			}
		}
		if r.flags.json {
			if sum.Invalid == nil {
				sum.Invalid = []importError{}
			}
			r.writeJSON(sum)
		} else {
			for _, ie := range sum.Invalid {
				fmt.Fprintf(r.env.Stderr, "engramctl memory import: entry %d (%q): %s\n", ie.Entry, ie.Text, ie.Error)
			}
			fmt.Fprintf(r.env.Stdout, "imported %d, duplicates %d, skipped %d, invalid %d\n", sum.Added, sum.Duplicates, sum.Skipped, len(sum.Invalid))
		}
		if len(sum.Invalid) > 0 {
			return exitError
		}
		return exitOK
	}
}

// clip shortens s to at most n runes for messages.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func memoryExport(r *memoryRun) func() int {
	all := r.flags.fs.Bool("all", false, "include history and deleted memories")
	jsonl := r.flags.fs.Bool("jsonl", false, "write JSON Lines, one memory per line")
	return func() int {
		if len(r.args) > 1 {
			return r.usageError("export to one file at a time")
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		es := r.store.List()
		if *all {
			es = r.store.All()
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if *jsonl {
			for _, e := range es {
				enc.Encode(e)
			}
		} else {
			if es == nil {
				es = []memory.Entry{}
			}
			enc.SetIndent("", "  ")
			// A complete export says what it has seen, so that importing it
			// elsewhere can tell its deletions; a partial one does not.
			var seen memory.Vector
			if *all {
				seen = r.store.Seen()
			}
			enc.Encode(struct {
				Version int            `json:"version"`
				Seen    memory.Vector  `json:"seen,omitempty"`
				Entries []memory.Entry `json:"entries"`
			}{2, seen, es})
		}
		if len(r.args) == 0 || r.args[0] == "-" {
			io.WriteString(r.env.Stdout, b.String())
			return exitOK
		}
		if err := os.WriteFile(r.args[0], []byte(b.String()), 0o600); err != nil {
			return r.fail(fmt.Errorf("write %s: %w", r.args[0], err))
		}
		return exitOK
	}
}

func memoryRepair(r *memoryRun) func() int {
	return func() int {
		if len(r.args) > 0 {
			return r.usageError("unexpected argument %q", r.args[0])
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		rep, err := r.store.Repair()
		if errors.Is(err, memory.ErrNothingToRepair) {
			fmt.Fprintf(r.env.Stdout, "%s parses; nothing to repair\n", filepath.Base(r.store.Path()))
			return exitOK
		}
		if err != nil {
			return r.fail(err)
		}
		if r.flags.json {
			r.writeJSON(rep)
			return exitOK
		}
		fmt.Fprintf(r.env.Stdout, "repaired %s: read %d memories from it, %d in all; the broken file is kept as %s\n",
			filepath.Base(r.store.Path()), rep.Read, rep.Entries, rep.Backup)
		return exitOK
	}
}
