package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"engram/memory"
)

// The memory subcommands that move whole files: import, export and
// repair.

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
	force := r.flags.fs.Bool("force", false, "import entries that look like secrets too")
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
		var sum importSummary
		secrets := map[int]bool{} // entries refused as secrets, by index
		for i, e := range entries {
			if what, ok := memory.Secret(e.Text); ok && e.Live() && !*force {
				secrets[i] = true
				sum.Invalid = append(sum.Invalid, importError{Entry: i + 1,
					Error: fmt.Sprintf("not imported: it looks like a secret (%s); --force imports it", what)})
			}
		}
		if code := r.open(); code != exitOK {
			return code
		}
		defer r.close()
		// A file merged by ID would bring its secrets along: with one in it,
		// its other entries are imported one by one instead.
		if len(secrets) == 0 {
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
		}
		var batch []memory.Entry
		var index []int
		for i, e := range entries {
			if !e.Live() {
				sum.Skipped++
				continue
			}
			if secrets[i] {
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
				if ie.Text == "" { // a secret: its text is not repeated
					fmt.Fprintf(r.env.Stderr, "engramctl memory import: entry %d: %s\n", ie.Entry, ie.Error)
					continue
				}
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
		var b bytes.Buffer
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
		out := escapeJSON(b.Bytes())
		if len(r.args) == 0 || r.args[0] == "-" {
			r.env.Stdout.Write(out)
			return exitOK
		}
		if err := os.WriteFile(r.args[0], out, 0o600); err != nil {
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
