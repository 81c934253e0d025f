package main

import (
	"errors"
	"fmt"
	"time"

	"engram/agent/chat"
	"engram/memory"
)

// The memory subcommands that delete for good or bring back: forget and
// trash.

// memoryForget is `engramctl memory forget ID...` or `engramctl memory
// forget --secrets`: the memories (with their history; live, older
// versions or removed ones in the trash), or every memory that looks like
// a secret, leave every file Engram keeps: the memory file keeps a
// tombstone without the text; the journal, the backups and the trash lose
// the text; so do the chats' recorded tool results.
func memoryForget(r *memoryRun) func() int {
	secrets := r.flags.fs.Bool("secrets", false, "forget every memory that looks like a secret")
	return func() int {
		switch {
		case *secrets && len(r.args) > 0:
			return r.usageError("--secrets takes no ID")
		case !*secrets && len(r.args) == 0:
			return r.usageError("missing ID (or --secrets)")
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		var gone, shown []memory.Entry
		code := exitOK
		if *secrets {
			var err error
			gone, err = r.store.ForgetSecrets()
			if err != nil {
				code = r.fail(err)
			}
			shown = gone
		}
		for _, arg := range r.args {
			versions, e, err := r.forgetOne(arg)
			gone = append(gone, versions...)
			if e.ID != "" {
				shown = append(shown, e)
			}
			if err != nil {
				if c := r.fail(err); c == exitError || code == exitOK {
					code = c
				}
			}
		}
		if err := r.scrubChats(gone); err != nil {
			fmt.Fprintf(r.env.Stderr, "engramctl memory forget: %v\n", err)
			code = exitError
		}
		r.printForgotten(shown)
		if code == exitOK && len(shown) > 0 {
			return r.saved()
		}
		return code
	}
}

// forgetOne forgets the memory arg names and returns every version of it
// that was forgotten, texts included, and the memory as it was.
func (r *memoryRun) forgetOne(arg string) ([]memory.Entry, memory.Entry, error) {
	id, err := r.resolve(arg)
	if err != nil {
		return nil, memory.Entry{}, err
	}
	versions := r.store.History(id)
	if trash, err := r.store.Trash(); err == nil {
		for _, t := range trash {
			if t.ID == id {
				versions = append(versions, t.Entry)
			}
		}
	}
	e, err := r.store.Forget(id)
	if err != nil && !errors.Is(err, memory.ErrNotPurged) {
		return nil, memory.Entry{}, err
	}
	return versions, e, err
}

// scrubChats takes the texts of the forgotten versions out of the chat
// files' recorded tool results (see chat.Store.Scrub).
func (r *memoryRun) scrubChats(gone []memory.Entry) error {
	if len(gone) == 0 {
		return nil
	}
	cs, err := chat.Load(enginePaths(r.env.Getenv).ChatsDir(), time.Now)
	if err != nil {
		return fmt.Errorf("take the forgotten memories out of the chats: %w", err)
	}
	if err := cs.Scrub(gone...); err != nil {
		return fmt.Errorf("take the forgotten memories out of the chats: %w", err)
	}
	return nil
}

// printForgotten writes the IDs of the forgotten memories, or with --json
// the memories as they were.
func (r *memoryRun) printForgotten(es []memory.Entry) {
	if r.flags.json {
		r.printEntries(es)
		return
	}
	for _, e := range es {
		fmt.Fprintln(r.env.Stdout, e.ID)
	}
}

// memoryTrash is `engramctl memory trash` (list what rm put in the trash,
// the last removed first) or `engramctl memory trash empty`.
func memoryTrash(r *memoryRun) func() int {
	return func() int {
		empty := false
		switch {
		case len(r.args) == 1 && r.args[0] == "empty":
			empty = true
		case len(r.args) > 0:
			return r.usageError("unexpected argument %q (want none, or empty)", r.args[0])
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		if empty {
			n, err := r.store.EmptyTrash()
			if err != nil {
				return r.fail(err)
			}
			if r.flags.json {
				r.writeJSON(map[string]int{"emptied": n})
			} else {
				fmt.Fprintf(r.env.Stdout, "emptied the trash: %d memories deleted for good\n", n)
			}
			return exitOK
		}
		items, err := r.store.Trash()
		if err != nil {
			return r.fail(err)
		}
		if r.flags.json {
			if items == nil {
				items = []memory.Trashed{}
			}
			r.writeJSON(items)
			return exitOK
		}
		for _, t := range items {
			fmt.Fprintf(r.env.Stdout, "%s\t%s\tremoved %s\t%s\n", t.ID, t.Kind, t.Removed.Format(time.RFC3339), escapeText(t.Text))
		}
		return exitOK
	}
}
