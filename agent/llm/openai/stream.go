package openai

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"engram/agent/llm"
)

// wireChunk is a chat.completion.chunk as servers really send it. It is
// decoded here rather than by go-openai, which has no field for the
// reasoning delta of LM Studio and Ollama and fails on arguments sent as
// a JSON object: the loosely typed fields stay raw until read.
type wireChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          json.RawMessage `json:"content"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ToolCalls        []wireToolCall  `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// wireToolCall is a tool call delta. Index, ID and the name may be
// missing; the arguments may be a string (the protocol) or an object.
type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// text reads a field that should be a string; null, absent or another
// type is "".
func text(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// arguments reads tool-call arguments: a string as it is, an object or
// array as its JSON text.
func arguments(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		return text(raw)
	}
	return string(raw)
}

// decoder assembles a Reply from stream chunks and reports its deltas.
type decoder struct {
	onDelta  func(llm.Delta)
	max      int // bytes of answer kept at most (0: no limit)
	size     int
	reply    llm.Reply
	text     strings.Builder
	thinking strings.Builder
	tags     llm.ThinkSplitter
	acc      toolAccumulator
	any      bool // some text, reasoning or tool call arrived
}

// chunk decodes one chunk.
func (d *decoder) chunk(raw []byte) error {
	var c wireChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("a chunk of the stream does not parse: %w", err)
	}
	if c.Usage != nil {
		d.reply.Usage = llm.Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // only one choice is asked for
		}
		if r := text(ch.Delta.ReasoningContent); r != "" {
			d.reason(r, llm.ReasoningContent)
		}
		if r := text(ch.Delta.Reasoning); r != "" {
			d.reason(r, llm.ReasoningField)
		}
		if s := text(ch.Delta.Content); s != "" {
			r, t := d.tags.Write(s)
			d.reason(r, llm.ReasoningTag)
			d.say(t)
		}
		for _, tc := range ch.Delta.ToolCalls {
			args := arguments(tc.Function.Arguments)
			d.size += len(args)
			d.acc.add(tc, args)
			d.any = true
			if d.max > 0 && d.size > d.max {
				d.reply.Cut = true
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			d.reply.Finish = *ch.FinishReason
		}
	}
	return nil
}

// reason adds reasoning.
func (d *decoder) reason(s, form string) {
	if s = d.fit(s); s == "" {
		return
	}
	if d.reply.ReasoningForm == "" {
		d.reply.ReasoningForm = form
	}
	d.thinking.WriteString(s)
	if d.onDelta != nil {
		d.onDelta(llm.Delta{Reasoning: s})
	}
}

// say adds answer text.
func (d *decoder) say(s string) {
	if s = d.fit(s); s == "" {
		return
	}
	d.text.WriteString(s)
	if d.onDelta != nil {
		d.onDelta(llm.Delta{Text: s})
	}
}

// fit counts s against the size limit and returns what of it fits.
func (d *decoder) fit(s string) string {
	if s == "" || d.reply.Cut {
		return ""
	}
	d.any = true
	if d.max > 0 && d.size+len(s) > d.max {
		n := max(d.max-d.size, 0)
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, d.reply.Cut = s[:n], true
	}
	d.size += len(s)
	return s
}

// finish flushes what the tag splitter held back and returns the reply.
func (d *decoder) finish() llm.Reply {
	r, t := d.tags.Flush()
	d.reason(r, llm.ReasoningTag)
	d.say(t)
	d.reply.Text = d.text.String()
	d.reply.Reasoning = d.thinking.String()
	if !d.reply.Cut { // the calls of a cut answer are incomplete
		d.reply.ToolCalls = d.acc.calls()
	}
	return d.reply
}

// toolAccumulator assembles tool calls from stream deltas: the first delta of
// a call carries its index, ID and name, the next ones pieces of arguments.
// Servers that send each call whole in one delta (Ollama) may give no index,
// and some give no ID.
type toolAccumulator struct {
	parts []llm.ToolCall
	index map[int]int // stream index -> position in parts
}

func (a *toolAccumulator) add(tc wireToolCall, args string) {
	pos := -1
	switch {
	case tc.Index != nil:
		if a.index == nil {
			a.index = map[int]int{}
		}
		p, ok := a.index[*tc.Index]
		if ok && tc.ID != "" && a.parts[p].ID != "" && tc.ID != a.parts[p].ID {
			ok = false // a server that gives every call index 0: a new ID is a new call
		}
		if !ok {
			p = len(a.parts)
			a.index[*tc.Index] = p
			a.parts = append(a.parts, llm.ToolCall{})
		}
		pos = p
	case tc.ID != "":
		// No index: a new ID is a new call.
		for i, p := range a.parts {
			if p.ID == tc.ID {
				pos = i
			}
		}
	case len(a.parts) > 0 && (tc.Function.Name == "" || a.parts[len(a.parts)-1].Name == ""):
		pos = len(a.parts) - 1 // more of the last call
	}
	if pos < 0 {
		pos = len(a.parts) // neither index nor ID, but a name: a new call
		a.parts = append(a.parts, llm.ToolCall{})
	}
	p := &a.parts[pos]
	if p.ID == "" {
		p.ID = tc.ID
	}
	if p.Name == "" {
		p.Name = tc.Function.Name
	}
	p.Args += args
}

// calls returns the assembled calls, giving an ID to calls that had none.
func (a *toolAccumulator) calls() []llm.ToolCall {
	out := make([]llm.ToolCall, 0, len(a.parts))
	for _, p := range a.parts {
		if p.Name == "" {
			continue
		}
		if p.ID == "" {
			p.ID = newCallID()
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// newCallID makes an ID for a tool call the server gave none, unique
// across the calls of a chat.
func newCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
