package agenttest

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPServerEnv, set in a test binary's environment, makes RunInTempHome
// serve the tools of a test MCP server on stdio instead of running the
// tests: the binary is then a real MCP server process for the tests to
// start (see MCPServerCommand). Its value "sleepy" starts it 30 s late.
const MCPServerEnv = "ENGRAM_TEST_MCP_SERVER"

// MCPServerCommand is how a test starts the running test binary as the
// test MCP server: command, arguments and the environment to add.
func MCPServerCommand(mode string) (string, []string, map[string]string) {
	return os.Args[0], []string{"-test.run=^$"}, map[string]string{MCPServerEnv: mode}
}

type echoArgs struct {
	Text string `json:"text"`
}

// serveMCP serves echo (the text back), big (a long result), fail (a
// tool error), slow (10 s, or until cancelled) and crash (the process
// dies mid-call).
func serveMCP(mode string) {
	if mode == "sleepy" {
		time.Sleep(30 * time.Second)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "engram-test-server", Version: "1"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "says the text back"},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return text("echo: " + a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "a long result"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("界", 40000)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "fails"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such file"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "takes its time"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(10 * time.Second):
			case <-ctx.Done():
			}
			return text("late"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "dies mid-call"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}
