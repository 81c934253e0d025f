package main

import (
	"fmt"
	"io"
	"strings"

	"engram/agent"
	"engram/memory"
)

// The memory subcommands that read and change entries: list, add, edit,
// rm, restore, pin, unpin and search.

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
		if memory.SearchesByMeaning(query) {
			done := r.embedForSearch(query)
			defer done()
		}
		hits := r.store.Search(query, *k)
		if r.flags.json {
			type hit struct {
				memory.Entry
				Score   float64  `json:"score"`
				Terms   []string `json:"terms,omitempty"`
				Meaning float64  `json:"similar_meaning,omitempty"`
			}
			out := make([]hit, len(hits))
			for i, h := range hits {
				out[i] = hit{h.Entry, h.Score, h.Terms, h.Meaning}
			}
			r.writeJSON(out)
			return exitOK
		}
		for _, h := range hits {
			fmt.Fprintf(r.env.Stdout, "%s\t%.3f\t%s\t%s", h.Entry.ID, h.Score, h.Entry.Kind, escapeText(h.Entry.Text))
			if h.Meaning > 0 {
				fmt.Fprintf(r.env.Stdout, "\tsimilar meaning %.2f", h.Meaning)
			}
			fmt.Fprintln(r.env.Stdout)
		}
		return exitOK
	}
}

// embedForSearch gives the store the embedder memory search ranks query
// by meaning with, its vectors ready: the endpoint's model when Settings
// choose one (semantic_recall in config.json; the memories' vectors come
// from the cache the app and memory reindex fill, the rest are sent), or
// else the built-in one, also when the endpoint fails (with a warning). If
// neither can, the search is by words (with a warning). done closes it.
func (r *memoryRun) embedForSearch(query string) (done func()) {
	done = func() {}
	ready := false
	if cfg, err := agent.LoadConfig(enginePaths(r.env.Getenv).ConfigFile(), r.env.Getenv); err == nil &&
		cfg.SemanticRecall != "" && cfg.SemanticRecall != agent.SemanticBuiltin {
		e, err := endpointEmbedder(r.ctx, r.env, cfg.SemanticRecall)
		if err == nil {
			done = func() { e.Close() }
			r.store.SetEmbedder(e)
			if err = r.store.WaitSemantic(r.ctx); err == nil {
				_, err = e.Embed([]string{query}) // cached for the search
			}
		}
		if ready = err == nil; !ready {
			fmt.Fprintf(r.env.Stderr, "engramctl: warning: semantic recall by the built-in model: %v\n", err)
		}
	}
	if !ready {
		r.store.SetEmbedder(memory.Builtin())
		if err := r.store.WaitSemantic(r.ctx); err != nil {
			fmt.Fprintf(r.env.Stderr, "engramctl: warning: searching by words only: %v\n", err)
		}
	}
	return done
}
