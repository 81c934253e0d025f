// Package agent runs Engram's chat turns: recall, prompt assembly, a
// streaming completion against an OpenAI-compatible endpoint, the memory
// tools, distillation of new memories after a turn, compaction of long chats,
// and the chats on disk. It knows nothing of windows; the UI and engramctl
// consume its events.
//
// The model is reached through one seam, llm.Completer (package
// engram/agent/llm). Options.Connect makes the Completer of an endpoint; by
// default it is the go-openai adapter of engram/agent/llm/openai over
// Options.HTTPClient, the only code that knows the SDK. Provider errors come
// back as *llm.StatusError and are classified here into an *Error.
//
// # Turns
//
// Send records the user's message and returns at once. The turn runs on its
// own goroutine:
//
//  1. TurnStarted; then auto-recall over the global store and the pinned
//     project's store (the chat's recent user messages are the history), and
//     RecallDone with the hits (Skipped when the chat's auto-recall is off),
//     before anything is sent to the model;
//  2. compaction, if the chat's messages since the last summary exceed
//     Config.ContextChars;
//  3. the system prompt: base instructions, the global AGENTS.md, the
//     project's AGENTS.md, pinned memories, the latest summary of older
//     messages, today's date, and last the recall block (each memory with
//     its kind, ID and date), which is rebuilt every turn and never kept in
//     the history;
//  4. streaming completions (Delta events; the model's reasoning apart, as
//     ReasoningDelta events between ThinkingStarted and ThinkingDone) and
//     memory tool calls (ToolCall, ToolResult) until the model answers, at
//     most Options.MaxSteps calls:
//     the last is offered no tools, and tools it calls anyway are not run
//     (with no text either, the turn ends with CodeBadResponse);
//  5. TurnDone, with the usage and the error, if any;
//  6. after a completed turn, in the chat's capture mode (CaptureAuto,
//     CaptureAsk, CaptureOff), consolidation in the background: the memories
//     related to the turn are shown to the distiller by ID and date, and its
//     operations are applied with history kept (MemoriesSaved for new
//     memories or a failure, MemoriesRevised for updates, forgets and
//     proposed forgets, SuggestionsChanged for memories held in ask-first
//     mode). Learn does the same over past chats.
//
// A failing tool goes back to the model as a tool message and the turn goes
// on; only transport and API failures end a turn, as an *Error whose Message
// says what happened and what to do, with the server's own words for a
// refused request. 429 and 5xx are retried with backoff, or after the wait
// the endpoint's Retry-After asks for, up to a minute (a Notice says so); a
// context-length error compacts the chat and retries once; a model that
// rejects tools is asked again without them (with a Notice).
//
// # Reasoning
//
// Reasoning models think before they answer, in one of three forms that
// the adapter tells apart while streaming: a <think>, <thinking> or
// <reasoning> section at the start of the content, a reasoning_content
// delta (DeepSeek, vLLM), or a reasoning delta (LM Studio, Ollama for
// gpt-oss). The reasoning is streamed as ReasoningDelta events, saved as
// the answer's Message.Reasoning with its ThinkingTime, and never sent
// back to the model, to distillation or to compaction, with the one
// exception DeepSeek's API requires: within a turn, the follow-up requests
// after a tool call carry that call's reasoning_content.
//
// # Streams that break
//
// A stream that ends without a finish reason (and without [DONE]), or that
// goes silent for Config.StreamIdleTimeout, ends the turn with
// CodeInterrupted or CodeTimeout and TurnDone.Interrupted: what arrived is
// kept, marked Message.Interrupted, not distilled and not sent back, and
// Retry asks again. A stream with nothing in it is CodeBadResponse; an
// answer that has not started within Config.FirstByteTimeout is
// CodeTimeout; one over Config.MaxAnswerBytes is cut there (Message.Cut,
// with a Notice). Cancel, or cancelling the context given to Send, ends the turn
// with TurnDone{Err: context.Canceled} (the context's error: a deadline
// gives context.DeadlineExceeded); the partial answer stays in the chat
// marked Stopped and is not distilled.
//
// The message actions start turns the same way (actions.go): Resend
// replaces a user message and answers it, Regenerate answers a user message
// again (the window's Retry is a regeneration: the question is not
// recorded twice; Agent.Retry asks again keeping the failed answer),
// Continue extends a stopped, cut or interrupted answer, and DeleteMessage
// removes one message. They write through the same locked merge as every
// turn (chatfile.go): what Resend and Regenerate replace is kept in the
// chat's Branches, what DeleteMessage removes is listed in Chat.Deleted, and
// another writer's copy of the chat does not bring either back. RecallDone also lists
// the pinned memories that go into the prompt, which are marked used with
// the recalled ones.
//
// # Events
//
// Events returns the one event channel. Delivery rules:
//
//   - every event is delivered, in the order it happened, except that
//     consecutive Delta events of a chat that the consumer has not yet
//     received are merged into one with the concatenated text, and so are
//     consecutive ReasoningDelta events: deltas are never dropped, only
//     coalesced when the consumer is slower than the stream;
//   - a turn's events come in the order TurnStarted, RecallDone, then Delta,
//     ToolCall and ToolResult as they happen, then TurnDone last; its
//     Notices (retries, compaction, a chat that could not be saved…) come
//     between TurnStarted and TurnDone; MemoriesSaved, MemoriesRevised and
//     SuggestionsChanged of its consolidation come after its TurnDone (a
//     memory tool's MemoriesRevised comes with its ToolResult);
//   - MemoryChanged (a store changed, by the agent, the person or another
//     process) and InstructionsChanged (an AGENTS.md was reloaded) may come
//     at any time;
//   - the agent never blocks on the consumer (events queue without bound),
//     but the consumer should keep reading; after Close the channel is
//     closed and events not yet received may be lost.
//
// When TurnDone arrives, the chat accepts the next Send.
//
// # Goroutines
//
// Every method of Agent is safe to call from any goroutine. Apart from
// Models, Wait and Close, none waits for the network or for a turn, so the UI
// goroutine may call them: Send, Retry, Resend, Regenerate, Continue, Cancel, Running, Chats, Chat, Config and
// Events return at once; NewChat, RenameChat, DeleteChat, DeleteMessage, SetAutoRecall,
// SetProject and SetConfig write one small file; Instructions reads an
// AGENTS.md, and Memory may open a project's store file. Models asks the
// endpoint for its models: call it off the UI goroutine. Wait blocks until
// every turn and distillation has finished, and Close cancels them first and
// then waits; as the agent never waits for the event consumer, both may be
// called from any goroutine, but Wait not from the UI goroutine while a turn
// runs (the window would freeze until it ends).
//
// # Files that change
//
// While it runs, the agent follows the files people edit, by watching their
// directories: the global memory.json, AGENTS.md and config.json; the
// AGENTS.md of every project folder pinned to a chat (from New on); and a
// project's memory.json once its store is open. An outside edit of a
// memory.json is merged by the store and reported as one
// MemoryChanged{External: true} (the app's own writes are not reported as
// outside edits); a changed AGENTS.md is InstructionsChanged and the next
// prompt uses it (one over MaxInstructionsSize is cut, with a warning); a
// changed config.json applies from the next turn on, with a Notice, the
// environment still overriding its endpoint, key and model. Without a file
// watcher (the system is out of inotify instances) a Notice says so, and an
// AGENTS.md is still read again before a turn when it changed.
//
// Nothing in this package reads environment variables or XDG globals: the
// program resolves Paths (DefaultPaths) and the Config (ResolveConfig,
// LoadConfig with its getenv) and passes them to New, with the getenv as
// Options.Getenv so that the agent knows which settings the environment
// overrides when config.json changes or SetConfig saves it.
package agent
