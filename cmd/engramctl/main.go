// Command engramctl is the headless Engram CLI.
//
// This is a minimal placeholder written by the recall helper so that
// bench-recall can run; the store helper's main.go (with the full command
// registry) replaces it.
package main

import (
	"fmt"
	"io"
	"os"
)

// commands maps a subcommand name to its implementation.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"bench-recall": benchRecall,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: engramctl COMMAND [flags]")
		return 2
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "engramctl: unknown command %q\n", args[0])
		return 2
	}
	return cmd(args[1:], stdout, stderr)
}
