package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/agent"
	"engram/agent/mcpserver"
	"engram/cmd/internal/version"
	"engram/memory"
)

func init() {
	register("mcp", "serve the memory to other assistants over the Model Context Protocol (stdio, or --http)", runMCP)
}

// runMCP is `engramctl mcp [--project DIR] [--read-only] [--http ADDR]`:
// an MCP server over the same stores as the app (see package mcpserver),
// on stdin/stdout, or with --http on the streamable HTTP transport at ADDR,
// which must be a loopback address. It serves until the client hangs up
// or the process is interrupted.
func runMCP(ctx context.Context, args []string, env *cliEnv) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	project := fs.String("project", "", "serve the memory of the project folder `DIR` too")
	readOnly := fs.Bool("read-only", false, "offer only memory_search and memory_list")
	addr := fs.String("http", "", "serve the streamable HTTP transport at `ADDR` (loopback only, e.g. 127.0.0.1:8765)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: engramctl mcp [--project DIR] [--read-only] [--http ADDR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(env.Stderr, "engramctl mcp: %v\n", err)
		return exitError
	}
	if *addr != "" {
		if err := checkLoopback(*addr); err != nil {
			fmt.Fprintf(env.Stderr, "engramctl mcp: %v\n", err)
			return exitUsage
		}
	}
	paths := enginePaths(env.Getenv)
	cfg, err := agent.ResolveConfig(ctx, paths, env.Getenv, nil)
	if err != nil {
		return fail(err)
	}
	a, err := agent.New(agent.Options{Config: cfg, Paths: paths, Getenv: env.Getenv,
		Memory: memory.Options{Embedder: memory.Builtin()}})
	if err != nil {
		return fail(err)
	}
	defer a.Close()
	go func() {
		for range a.Events() { // the stores' changes reach the clients through the tools
		}
	}()
	opts := mcpserver.Options{ProjectDir: *project, ReadOnly: *readOnly, Version: version.String()}
	s, err := mcpserver.New(a, opts) // the stdio client's server; over HTTP it checks the options
	if err != nil {
		return fail(err)
	}
	if *addr != "" {
		err = serveMCPHTTP(ctx, *addr, a, opts, env.Stderr)
	} else {
		err = serveMCPStdio(ctx, s, env)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fail(err)
	}
	return exitOK
}

// serveMCPStdio serves one client on the command's stdin and stdout.
func serveMCPStdio(ctx context.Context, s *mcp.Server, env *cliEnv) error {
	out := env.Stdout
	if tw, ok := out.(*textWriter); ok {
		out = tw.w // JSON-RPC for the client, exact: its strings are escaped, not shown on a terminal
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{out}}
	if err := s.Run(ctx, t); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serveMCPHTTP serves the streamable HTTP transport at addr, a server per
// client session, until ctx ends. Requests from other origins and with a
// Host other than the loopback one are refused (DNS rebinding).
func serveMCPHTTP(ctx context.Context, addr string, a *agent.Agent, opts mcpserver.Options, log io.Writer) error {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s, err := mcpserver.New(a, opts)
		if err != nil {
			return nil // the handler answers 400
		}
		return s
	}, nil)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: http.NewCrossOriginProtection().Handler(h), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(log, "engramctl mcp: serving http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	}
}

// checkLoopback refuses an address other than a loopback one: the memory
// is the person's, and the server has no authentication.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--http %q: only a loopback address may serve the memory (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// nopWriteCloser is an io.Writer that Close leaves open.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
