// Package agent runs Engram's chat turns: it recalls memories, assembles the
// prompt, streams the model's answer, runs the memory tools and reports all
// of it as events. It knows nothing of windows; the UI and engramctl
// consume its events.
//
// # A turn
//
// Send records the user's message and returns at once; the turn runs on its
// own goroutine (turn.go):
//
//  1. TurnStarted, then recall over the global store and the pinned
//     project's, reported by RecallDone before anything is sent;
//  2. compaction when the chat outgrew Config.ContextChars (background.go);
//  3. the system prompt (prompt.go): instructions, AGENTS.md files, pinned
//     memories, the latest summary, the date and the recall block;
//  4. streamed completions and memory tool calls (tools.go runs them) until
//     the model answers, at most Options.MaxSteps calls: Delta, ToolCall,
//     ToolResult;
//  5. TurnDone; then, in the chat's capture mode, the memory pipeline in the
//     background distils what of the turn is worth keeping.
//
// A failing tool goes back to the model; only transport and API failures
// end a turn, as an *Error that says what happened and what to do
// (errors.go). Resend, Regenerate, Continue and DeleteMessage (actions.go)
// start or change turns the same way.
//
// Events are delivered in order and, until Close, never dropped; only
// deltas may be merged (the rules are on Event). Every method of Agent is safe from any
// goroutine, and all but Models, Wait and Close return without waiting for
// the network (see Agent).
//
// # Where things live
//
//   - engram/agent/chat: the chats on disk, their locked merge and search;
//   - engram/agent/distill: the memory pipeline (distillation,
//     consolidation, suggestions, forget proposals, Learn);
//   - engram/agent/memtools: the memory tools the model calls, with their
//     schemas and rules;
//   - engram/agent/llm: the model seam, llm.Completer; its OpenAI-compatible
//     adapter in engram/agent/llm/openai, the only code that knows the SDK;
//   - engram/agent/endpoint: the servers the settings offer or detect, and
//     which of a server's models to choose;
//   - engram/agent/prompts: the texts sent to the model as instructions;
//   - engram/agent/watch: file watching, which live.go uses to follow the
//     files people edit while the agent runs;
//   - config.go: the Config, its file and the Paths; settings.go: where
//     each setting in use comes from.
//
// Nothing in this package reads environment variables or XDG globals: the
// program resolves Paths (DefaultPaths) and the Config (ResolveConfig,
// LoadConfig with its getenv) and passes them to New, with the getenv as
// Options.Getenv so that the agent knows which settings the environment
// overrides when config.json changes or SetConfig saves it.
package agent
