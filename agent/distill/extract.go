package distill

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/agent/chat"
	"engram/agent/internal/textcut"
	"engram/memory"
)

// Distillation limits.
const (
	excerptMax      = 6000 // characters of a turn shown to the distiller
	toolResultMax   = 1200 // characters of each tool result in the excerpt
	distillMaxItems = 8    // memories kept from one turn at most
	distillMaxInput = 64 << 10
)

// opKind is what a distilled operation does; the zero value is add.
type opKind int

// The operations of consolidation.
const (
	opAdd    opKind = iota // a new memory
	opUpdate               // replace a shown memory (a supersede: history kept)
	opForget               // a shown memory is no longer true
	opNone                 // nothing to do
)

// candidate is one operation proposed by distillation: a new memory (Kind,
// Text, Scope), or an update (ID, Text, optional Kind) or forget (ID,
// Reason) of a memory the distiller was shown.
type candidate struct {
	Op     opKind
	ID     string
	Kind   memory.Kind
	Text   string
	Scope  chat.Scope
	Reason string
}

// smallTalk are messages never worth distilling.
var smallTalk = map[string]bool{
	"hi": true, "hello": true, "hey": true, "thanks": true, "thank you": true, "thx": true, "ok": true,
	"okay": true, "cool": true, "great": true, "nice": true, "bye": true, "goodbye": true, "yes": true,
	"no": true, "sure": true, "lol": true, "good morning": true, "good night": true, "how are you": true,
	"thanks a lot": true, "got it": true, "perfect": true, "awesome": true,
}

// WorthDistilling decides cheaply, without the model, whether a turn may
// hold something worth remembering.
func WorthDistilling(user, answer string, tools []chat.ToolRecord) bool {
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

// Excerpt renders a turn for the distiller: the user's message, the
// tool calls (results cut to toolResultMax) and the answer. A turn longer
// than excerptMax keeps its head and its tail, which is where requests and
// conclusions are.
func Excerpt(user string, tools []chat.ToolRecord, answer string) string {
	var b strings.Builder
	b.WriteString("User: ")
	b.WriteString(strings.TrimSpace(user))
	b.WriteString("\n")
	for _, t := range tools {
		res := t.Result
		if len(res) > toolResultMax {
			res = textcut.UTF8(res, toolResultMax) + " […]"
		}
		fmt.Fprintf(&b, "\nTool %s(%s) → %s\n", t.Name, t.Args, res)
	}
	b.WriteString("\nAssistant: ")
	b.WriteString(strings.TrimSpace(answer))
	return textcut.Middle(b.String(), excerptMax, excerptMax/2, "\n\n[… the middle of the turn is left out …]\n\n")
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
var fence = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*\\n?(.*?)```")

// parseDistilled reads the distiller's answer tolerantly: a JSON array of
// operations ({op, id, kind, text, scope, reason}; an object without op is
// an add), possibly inside prose, code fences, <think> blocks or a wrapping
// object ({"memories": [...]}), or an array of plain strings (facts to
// add). Unknown kinds become facts; unknown ops, "none", adds and updates
// without text, updates and forgets without id, overlong texts and
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
			if len(extract(x, 0)) > 0 || hasArray(x) || hasOp(x) {
				return x, true
			}
		}
	}
	return nil, false
}

func hasOp(m map[string]any) bool {
	for _, k := range opKeys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
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
	kindKeys   = []string{"kind", "type", "category"}
	textKeys   = []string{"text", "memory", "content", "fact", "value", "note", "new_text", "new"}
	listKeys   = []string{"memories", "items", "results", "data", "entries", "facts", "operations", "ops", "actions"}
	scopeKeys  = []string{"scope", "store"}
	opKeys     = []string{"op", "operation", "action", "event"}
	idKeys     = []string{"id", "memory_id", "target"}
	reasonKeys = []string{"reason", "why", "because"}
)

// opNames maps the names models use for an operation to it.
var opNames = map[string]opKind{
	"add": opAdd, "insert": opAdd, "new": opAdd, "create": opAdd, "save": opAdd,
	"update": opUpdate, "modify": opUpdate, "replace": opUpdate, "change": opUpdate, "edit": opUpdate,
	"supersede": opUpdate, "correct": opUpdate,
	"forget": opForget, "delete": opForget, "remove": opForget, "drop": opForget,
	"none": opNone, "noop": opNone, "no-op": opNone, "nothing": opNone, "skip": opNone, "keep": opNone,
}

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
				out = append(out, candidate{Kind: memory.KindFact, Text: e, Scope: chat.ScopeGlobal})
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

// fromObject reads one operation; ok is false for objects that are not
// one (no op and no text) and for unknown ops.
func fromObject(m map[string]any) (candidate, bool) {
	str := func(keys []string) string {
		for _, k := range keys {
			switch v := m[k].(type) {
			case string:
				return v
			case float64: // an id given as a number
				return strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		return ""
	}
	name, hasOp := "", false
	for _, k := range opKeys {
		if _, ok := m[k]; ok {
			name, hasOp = strings.ToLower(strings.TrimSpace(str([]string{k}))), true
			break
		}
	}
	op, known := opNames[name]
	text := str(textKeys)
	switch {
	case !hasOp && text == "":
		return candidate{}, false
	case hasOp && !known:
		return candidate{}, false
	}
	kind, err := memory.ParseKind(str(kindKeys))
	if err != nil {
		kind = memory.KindFact
		if op == opUpdate {
			kind = "" // keep the kind of the memory it replaces
		}
	}
	scope := chat.ScopeGlobal
	if strings.EqualFold(strings.TrimSpace(str(scopeKeys)), string(chat.ScopeProject)) {
		scope = chat.ScopeProject
	}
	return candidate{Op: op, ID: strings.TrimSpace(str(idKeys)), Kind: kind, Text: text, Scope: scope,
		Reason: OneLine(str(reasonKeys))}, true
}

// OneLine folds white space into single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// normalise trims and collapses texts and drops no-ops, adds and updates
// with empty, overlong (over the store's memory.MaxAutoRunes), invalid or
// duplicate texts, updates and forgets without an id and second operations
// on one id, keeping at most distillMaxItems.
func normalise(cs []candidate) []candidate {
	seen := map[string]bool{}
	ids := map[string]bool{}
	out := []candidate{}
	for _, c := range cs {
		c.Text = OneLine(c.Text)
		switch c.Op {
		case opNone:
			continue
		case opUpdate, opForget:
			if c.ID == "" || ids[c.ID] {
				continue
			}
		}
		if c.Op == opForget {
			c.Text, c.Kind = "", ""
		} else {
			key := strings.ToLower(c.Text)
			if c.Text == "" || utf8.RuneCountInString(c.Text) > memory.MaxAutoRunes || seen[key] || !validText(c.Text) {
				continue
			}
			seen[key] = true
		}
		if c.ID != "" {
			ids[c.ID] = true
		}
		if c.Op == opAdd {
			c.ID = ""
		}
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
