package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/memory"
)

// Distillation limits.
const (
	excerptMax      = 6000 // characters of a turn shown to the distiller
	toolResultMax   = 1200 // characters of each tool result in the excerpt
	distillMaxItems = 8    // memories kept from one turn at most
	distillMaxInput = 64 << 10
)

// distillPrompt is the system prompt of a distillation call.
const distillPrompt = `You maintain the long-term memory of a personal assistant. Read the conversation turn below and extract what will still matter in future conversations:
- preference: how the user likes things done (tools, style, formats, habits);
- correction: something the assistant got wrong and the user corrected;
- lesson: something learned the hard way that should change future behaviour;
- fact: a stable fact about the user, their work or their projects.
Skip small talk, one-off requests, passing details and anything general knowledge. Each text is one short self-contained sentence that makes sense without the conversation. Use scope "project" only for facts about the pinned project folder.
Reply with ONLY a JSON array, no prose, e.g.
[{"kind":"preference","text":"The user prefers tabs over spaces in Go code.","scope":"global"}]
Reply [] when nothing is worth keeping.`

// candidate is a memory proposed by distillation.
type candidate struct {
	Kind  memory.Kind
	Text  string
	Scope Scope
}

// smallTalk are messages never worth distilling.
var smallTalk = map[string]bool{
	"hi": true, "hello": true, "hey": true, "thanks": true, "thank you": true, "thx": true, "ok": true,
	"okay": true, "cool": true, "great": true, "nice": true, "bye": true, "goodbye": true, "yes": true,
	"no": true, "sure": true, "lol": true, "good morning": true, "good night": true, "how are you": true,
	"thanks a lot": true, "got it": true, "perfect": true, "awesome": true,
}

// worthDistilling decides cheaply, without the model, whether a turn may
// hold something worth remembering.
func worthDistilling(user, answer string, tools []ToolRecord) bool {
	norm := strings.Join(strings.FieldsFunc(strings.ToLower(user), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}), " ")
	if norm == "" || smallTalk[norm] {
		return false
	}
	if len(tools) == 0 && len(strings.Fields(norm)) < 3 && len(answer) < 200 {
		return false
	}
	return true
}

// turnExcerpt renders a turn for the distiller: the user's message, the
// tool calls (results cut to toolResultMax) and the answer. A turn longer
// than excerptMax keeps its head and its tail, which is where requests and
// conclusions are.
func turnExcerpt(user string, tools []ToolRecord, answer string) string {
	var b strings.Builder
	b.WriteString("User: ")
	b.WriteString(strings.TrimSpace(user))
	b.WriteString("\n")
	for _, t := range tools {
		res := t.Result
		if len(res) > toolResultMax {
			res = cutUTF8(res, toolResultMax) + " […]"
		}
		fmt.Fprintf(&b, "\nTool %s(%s) → %s\n", t.Name, t.Args, res)
	}
	b.WriteString("\nAssistant: ")
	b.WriteString(strings.TrimSpace(answer))
	return cutMiddle(b.String(), excerptMax, excerptMax/2, "\n\n[… the middle of the turn is left out …]\n\n")
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
var fence = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*\\n?(.*?)```")

// parseDistilled reads the distiller's answer tolerantly: a JSON array of
// {kind, text, scope} objects, possibly inside prose, code fences or a
// wrapping object ({"memories": [...]}), or an array of plain strings
// (facts). Unknown kinds become facts; empty and overlong texts and
// duplicates are dropped. An answer with no JSON in it is an error; an
// empty array is not.
func parseDistilled(s string) ([]candidate, error) {
	if len(s) > distillMaxInput {
		s = s[:distillMaxInput]
	}
	s = thinkBlock.ReplaceAllString(s, "")
	var tries []string
	for _, m := range fence.FindAllStringSubmatch(s, 4) {
		tries = append(tries, m[1])
	}
	tries = append(tries, s)
	for _, t := range tries {
		if v, ok := decodeFirst(t); ok {
			return normalise(extract(v, 0)), nil
		}
	}
	return nil, errors.New("no JSON array of memories in the answer")
}

// decodeFirst decodes the first JSON array or object in s that holds
// something that looks like memories.
func decodeFirst(s string) (any, bool) {
	attempts := 0
	for i := 0; i < len(s) && attempts < 32; i++ {
		if s[i] != '[' && s[i] != '{' {
			continue
		}
		attempts++
		var v any
		d := json.NewDecoder(strings.NewReader(s[i:]))
		if err := d.Decode(&v); err != nil {
			continue
		}
		switch x := v.(type) {
		case []any:
			return x, true
		case map[string]any:
			if len(extract(x, 0)) > 0 || hasArray(x) {
				return x, true
			}
		}
	}
	return nil, false
}

func hasArray(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.([]any); ok {
			return true
		}
	}
	return false
}

var (
	kindKeys  = []string{"kind", "type", "category"}
	textKeys  = []string{"text", "memory", "content", "fact", "value", "note"}
	listKeys  = []string{"memories", "items", "results", "data", "entries", "facts"}
	scopeKeys = []string{"scope", "store"}
)

// extract finds candidates in a decoded JSON value.
func extract(v any, depth int) []candidate {
	if depth > 4 {
		return nil
	}
	switch x := v.(type) {
	case []any:
		var out []candidate
		for _, e := range x {
			switch e := e.(type) {
			case string:
				out = append(out, candidate{Kind: memory.KindFact, Text: e, Scope: ScopeGlobal})
			case map[string]any:
				if c, ok := fromObject(e); ok {
					out = append(out, c)
				}
			}
		}
		return out
	case map[string]any:
		if c, ok := fromObject(x); ok {
			return []candidate{c}
		}
		for _, k := range listKeys {
			if l, ok := x[k].([]any); ok {
				return extract(l, depth+1)
			}
		}
		for _, val := range x {
			if l, ok := val.([]any); ok {
				return extract(l, depth+1)
			}
		}
	}
	return nil
}

func fromObject(m map[string]any) (candidate, bool) {
	str := func(keys []string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
		return ""
	}
	text := str(textKeys)
	if text == "" {
		return candidate{}, false
	}
	kind, err := memory.ParseKind(str(kindKeys))
	if err != nil {
		kind = memory.KindFact
	}
	scope := ScopeGlobal
	if strings.EqualFold(strings.TrimSpace(str(scopeKeys)), string(ScopeProject)) {
		scope = ScopeProject
	}
	return candidate{Kind: kind, Text: text, Scope: scope}, true
}

// normalise trims and collapses texts and drops empty, overlong (over the
// store's memory.MaxAutoRunes), invalid and duplicate candidates, keeping
// at most distillMaxItems.
func normalise(cs []candidate) []candidate {
	seen := map[string]bool{}
	out := []candidate{}
	for _, c := range cs {
		c.Text = strings.Join(strings.Fields(c.Text), " ")
		key := strings.ToLower(c.Text)
		if c.Text == "" || utf8.RuneCountInString(c.Text) > memory.MaxAutoRunes || seen[key] || !validText(c.Text) {
			continue
		}
		seen[key] = true
		out = append(out, c)
		if len(out) == distillMaxItems {
			break
		}
	}
	return out
}

// validText rejects texts with control characters or invalid UTF-8.
func validText(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || unicode.IsControl(r) {
			return false
		}
	}
	return true
}
