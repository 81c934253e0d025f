package agent

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

// Key names the wording of an Error or a Notice, so that a window can say
// it in its own language: Wording(key) is the English template, whose
// {{.Field}}s are the Words' Args. The keys and their templates are
// stable; a translation is keyed by the English template.
type Key string

// The wordings of the errors (Error.Words).
const (
	KeyNoEndpoint       Key = "no_endpoint"
	KeyNoModel          Key = "no_model"
	KeyFirstByteTimeout Key = "first_byte_timeout"
	KeyIdleTimeout      Key = "idle_timeout"
	KeyInterrupted      Key = "interrupted"
	KeyEmptyAnswer      Key = "empty_answer"
	KeyContextTooLong   Key = "context_too_long"
	KeyToolsUnsupported Key = "tools_unsupported"
	KeyKeyRejected      Key = "key_rejected"
	KeyForbidden        Key = "forbidden"
	KeyModelNotFound    Key = "model_not_found"
	KeyRateLimited      Key = "rate_limited"
	KeyServer           Key = "server"
	KeyRefused          Key = "refused"
	KeyUnreachable      Key = "unreachable"
	KeyUnreadable       Key = "unreadable"
	KeyToolLoop         Key = "tool_loop"
	KeyNoAnswer         Key = "no_answer"
	KeyOnlyReasoned     Key = "only_reasoned"
	KeyEmptySummary     Key = "empty_summary"
)

// The wordings of the notices (Notice.Words).
const (
	KeyRetryRateLimited     Key = "retry_rate_limited"
	KeyRetryServer          Key = "retry_server"
	KeyAnswerTooLong        Key = "answer_too_long"
	KeyOutputLimit          Key = "output_limit"
	KeyNoTools              Key = "no_tools"
	KeyChatNotSaved         Key = "chat_not_saved"
	KeyProjectMemory        Key = "project_memory_unavailable"
	KeySummarised           Key = "summarised"
	KeySecretNotSaved       Key = "secret_not_saved"
	KeyChatUnreadable       Key = "chat_unreadable"
	KeyScrubFailed          Key = "scrub_failed"
	KeyNotFollowing         Key = "not_following"
	KeyOutsideChanges       Key = "outside_changes"
	KeyFileNotFollowed      Key = "file_not_followed"
	KeyConflictsMerged      Key = "conflicts_merged"
	KeyConflictLeft         Key = "conflict_left"
	KeyConfigUnusable       Key = "config_unusable"
	KeyConfigChanged        Key = "config_changed"
	KeyToolServersUnchanged Key = "tool_servers_unchanged"
	KeyAllowedThisSession   Key = "allowed_this_session"
	KeySemanticFallback     Key = "semantic_fallback"
	KeyServerSaid           Key = "server_said" // the part ServerSaid of other wordings
	KeyRetryAsked           Key = "retry_asked" // the part Asked of a retry's
)

// wordings are the English templates. Args named Server are the
// endpoint's own words, Err a cause, Model, Base, Path and File names:
// they are quoted as they are in every language.
var wordings = map[Key]string{
	KeyNoEndpoint: "No model endpoint is configured and no local server (Ollama on 127.0.0.1:11434, LM Studio on " +
		"127.0.0.1:1234) answered. Set the endpoint and model in Settings, or OPENAI_BASE_URL and ENGRAM_MODEL",
	KeyNoModel: "No model is chosen for {{.Base}}. Pick one in Settings, or set ENGRAM_MODEL",
	KeyFirstByteTimeout: "The endpoint did not start answering within {{.After}}. The server may be overloaded or " +
		"still loading the model; try again, or raise first_byte_timeout in config.json",
	KeyIdleTimeout: "The endpoint stopped sending for {{.After}}, so the answer was ended there. What arrived is " +
		"kept; Retry asks again (stream_idle_timeout in config.json sets the wait)",
	KeyInterrupted: "The answer broke off before the model finished (the stream ended without a finish reason). " +
		"What arrived is kept; Retry asks again",
	KeyEmptyAnswer: "The endpoint sent an empty answer (the stream closed with nothing in it). Try again; if it " +
		"keeps happening, check the server's log",
	KeyContextTooLong: "The conversation is longer than the model's context window. Start a new chat or choose a " +
		"model with a larger context{{.ServerSaid}}",
	KeyToolsUnsupported: "The model {{.Model}} does not support tools; memory tools are off for this " +
		"answer{{.ServerSaid}}",
	KeyKeyRejected: "The endpoint rejected the API key (401). Check the key in Settings or OPENAI_API_KEY",
	KeyForbidden: "The API key is not allowed to use this model or endpoint (403). Check the key and its " +
		"permissions",
	KeyModelNotFound: "The model \"{{.Model}}\" was not found (404). Check the model name and the base URL (it " +
		"usually ends in /v1){{.ServerSaid}}",
	KeyRateLimited: "The endpoint is rate limiting requests (429) and still was after several retries. Wait a " +
		"minute and try again, or check your plan's limits",
	KeyServer:      "The endpoint failed with a server error ({{.Status}}), also on retry. Try again later",
	KeyRefused:     "The endpoint refused the request ({{.Status}}){{.ServerSaid}}",
	KeyUnreachable: "The model endpoint cannot be reached (connection refused or timed out). Check that the server is running and the base URL is right",
	KeyUnreadable:  "The endpoint's answer broke off or could not be read",
	KeyToolLoop: "The model kept calling tools and gave no answer within {{.Steps}} steps. Try again, or ask " +
		"differently",
	KeyNoAnswer: "The model finished without an answer. Try again, or ask differently",
	KeyOnlyReasoned: "The model only reasoned and finished without an answer (its thinking is kept). Try again, " +
		"or ask differently",
	KeyEmptySummary: "The model returned an empty summary of the chat",

	KeyRetryRateLimited: "The endpoint is rate limiting requests (429); retrying in {{.Wait}}{{.Asked}}.",
	KeyRetryServer:      "The endpoint had a server error; retrying in {{.Wait}}{{.Asked}}.",
	KeyAnswerTooLong:    "The answer reached {{.Size}} and was cut there (max_answer_bytes in config.json).",
	KeyOutputLimit:      "The answer was cut off at the model's output limit.",
	KeyNoTools:          "The model {{.Model}} does not support tools, so it answers without the memory tools.",
	KeyChatNotSaved:     "The chat could not be saved: {{.Err}}",
	KeyProjectMemory:    "The project's memory is unavailable: {{.Err}}",
	KeySummarised:       "Summarised {{.Count}} earlier messages to fit the model's context.",
	KeySecretNotSaved:   "{{.Count}} memory not saved: it looks like a secret (a password, key or token).",
	KeyChatUnreadable:   "A saved chat could not be read and is not shown: {{.Err}}",
	KeyScrubFailed:      "A forgotten memory's text could not be removed from every chat: {{.Err}}",
	KeySemanticFallback: "Semantic recall with {{.Model}} is unavailable, so the built-in model is used: {{.Err}}",
	KeyNotFollowing:     "Following file changes: {{.Err}}",
	KeyOutsideChanges:   "Changes to Engram's files made outside the app will show after a restart: {{.Err}}",
	KeyFileNotFollowed:  "Changes to {{.Path}} will show after a restart: {{.Err}}",
	KeyConflictsMerged: "Merged {{.Entries}} memories from {{.Copies}} conflict copies of memory.json; the copies " +
		"are kept in the backups folder.",
	KeyConflictLeft:         "A conflict copy of memory.json was left as it is: {{.Err}}",
	KeyConfigUnusable:       "config.json was changed but cannot be used; keeping the current settings: {{.Err}}",
	KeyConfigChanged:        "config.json changed; the next turn uses the new settings.",
	KeyToolServersUnchanged: "The MCP servers were not changed: {{.Err}}",
	KeyAllowedThisSession:   "Allowed for this session only: {{.Err}}",
	KeyServerSaid:           ". The server said: {{.Server}}",
	KeyRetryAsked:           ", as it asked",
}

// Words is a message for people as a key and its arguments: Wording(Key)
// filled with Args says it in English, and a window can say it in its own
// language with Say.
type Words struct {
	Key  Key
	Args map[string]string
}

// Keys lists every key, sorted.
func Keys() []Key {
	keys := slices.Collect(maps.Keys(wordings))
	slices.Sort(keys)
	return keys
}

// Wording is the English template of key, "" for an unknown key.
func Wording(key Key) string { return wordings[key] }

// Say words w with say, which fills a wording (an English template) with
// args: in English (English), or in the window's language. The parts
// that are worded themselves are filled first: ServerSaid (KeyServerSaid)
// when Args has Server, Asked (KeyRetryAsked) when it has AsAsked.
func (w Words) Say(say func(wording string, args map[string]string) string) string {
	args := map[string]string{}
	maps.Copy(args, w.Args)
	if args["Server"] != "" {
		args["ServerSaid"] = say(Wording(KeyServerSaid), args)
	}
	if args["AsAsked"] != "" {
		args["Asked"] = say(Wording(KeyRetryAsked), args)
	}
	return say(Wording(w.Key), args)
}

// English says w in English.
func (w Words) English() string { return w.Say(Fill) }

// Fill fills wording, a template in Go's template syntax, with args; a
// field that args lacks reads as nothing.
func Fill(wording string, args map[string]string) string {
	t, err := template.New("").Option("missingkey=zero").Parse(wording)
	if err != nil {
		return wording // the wordings are constants: TestWordingsFill keeps them valid
	}
	var b strings.Builder
	if err := t.Execute(&b, args); err != nil {
		return wording
	}
	return b.String()
}

// words builds Words from key and pairs of names and values.
func words(key Key, pairs ...any) Words {
	w := Words{Key: key}
	for i := 0; i+1 < len(pairs); i += 2 {
		if w.Args == nil {
			w.Args = map[string]string{}
		}
		name, _ := pairs[i].(string)
		w.Args[name] = argText(pairs[i+1])
	}
	return w
}

// argText is a value as the Args hold it.
func argText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	}
	return ""
}

// notice emits a Notice worded by key and its pairs of names and values.
func (a *Agent) notice(chatID string, key Key, pairs ...any) {
	w := words(key, pairs...)
	a.emit(Notice{ChatID: chatID, Text: w.English(), Words: w})
}
