package main

import (
	"context"
	"fmt"

	"engram/cmd/internal/version"
)

func init() {
	register("version", "print the Engram version", runVersion)
}

// runVersion prints "engramctl VERSION"; it takes no arguments.
func runVersion(_ context.Context, args []string, env *cliEnv) int {
	if len(args) > 0 {
		fmt.Fprintln(env.Stderr, "usage: engramctl version")
		return exitUsage
	}
	fmt.Fprintln(env.Stdout, "engramctl", version.String())
	return exitOK
}
