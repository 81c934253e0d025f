package distill

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"engram/agent/chat"
	"engram/memory"
)

// Consolidation limits.
const (
	relatedMax     = 10  // existing memories shown to the distiller at most
	relatedQueries = 8   // queries (the message and its sentences) at most
	relatedRunes   = 500 // runes of one shown memory's text at most
)

// Shown is an existing memory the model was shown, with its store: the
// memory an update or a forget may change.
type Shown struct {
	Target Target
	Entry  memory.Entry
}

// related finds the existing memories of the stores that relate to a turn:
// the user's message and each of its sentences (the candidate facts) are
// queries; the best relatedMax hits over all of them, pinned ones included,
// are returned best first.
func (p *Pipeline) related(stores []Target, user string) []chat.Hit {
	queries := append([]string{user}, sentences(user)...)
	if len(queries) > relatedQueries {
		queries = queries[:relatedQueries]
	}
	best := map[string]chat.Hit{}
	for _, q := range queries {
		for _, h := range p.cfg.Recall(stores, q, relatedMax) {
			key := string(h.Scope) + "/" + h.Entry.ID
			if old, ok := best[key]; !ok || h.Score > old.Score {
				best[key] = h
			}
		}
	}
	out := make([]chat.Hit, 0, len(best))
	for _, h := range best {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Entry.ID < out[j].Entry.ID
	})
	if len(out) > relatedMax {
		out = out[:relatedMax]
	}
	return out
}

// sentences splits a message into its sentences of at least three words
// (or eight runes, for languages without spaces), when it has more than one.
func sentences(s string) []string {
	parts := strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(".!?;\n。！？；", r)
	})
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if len(strings.Fields(p)) >= 3 || utf8.RuneCountInString(p) >= 8 {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// relatedLine is how a shown memory is given to the distiller, one a line:
// "id=<id> date=<YYYY-MM-DD> kind=<kind> scope=<scope>: <text>". The line
// format is a contract: tests and outside checks rely on it.
func relatedLine(h chat.Hit) string {
	text := strings.Join(strings.Fields(memory.Defuse(h.Entry.Text)), " ")
	if rs := []rune(text); len(rs) > relatedRunes {
		text = string(rs[:relatedRunes-1]) + "…"
	}
	return fmt.Sprintf("id=%s date=%s kind=%s scope=%s: %s", h.Entry.ID,
		memory.Confirmed(h.Entry).UTC().Format(time.DateOnly), h.Entry.Kind, h.Scope, text)
}

// distillInput is the user message of a distillation call: the language
// to write in, the related memories, one a line, then the turn.
func distillInput(hits []chat.Hit, user, excerpt string) string {
	var b strings.Builder
	if lang := scriptLanguage(user); lang != "" {
		fmt.Fprintf(&b, "The user wrote in %s: write the memories in %s.\n\n", lang, lang)
	}
	b.WriteString("Memories already kept that relate to this turn:\n")
	if len(hits) == 0 {
		b.WriteString("(none)\n")
	}
	for _, h := range hits {
		b.WriteString(relatedLine(h))
		b.WriteByte('\n')
	}
	b.WriteString("\nThe turn:\n")
	b.WriteString(excerpt)
	return b.String()
}

// scriptLanguage names the language of a message written mostly in a
// script that tells it (Chinese, Japanese, Korean, Russian, Greek, Arabic,
// Hebrew, Thai, Hindi), or "" (Latin script and the rest: the prompt's
// general rule to keep the user's language applies).
func scriptLanguage(s string) string {
	counts := map[string]int{}
	letters := 0
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			counts["Japanese"] += 3 // kana mark Japanese even among kanji
		case unicode.Is(unicode.Han, r):
			counts["Chinese"]++
		case unicode.Is(unicode.Hangul, r):
			counts["Korean"]++
		case unicode.Is(unicode.Cyrillic, r):
			counts["Russian"]++
		case unicode.Is(unicode.Greek, r):
			counts["Greek"]++
		case unicode.Is(unicode.Arabic, r):
			counts["Arabic"]++
		case unicode.Is(unicode.Hebrew, r):
			counts["Hebrew"]++
		case unicode.Is(unicode.Thai, r):
			counts["Thai"]++
		case unicode.Is(unicode.Devanagari, r):
			counts["Hindi"]++
		}
	}
	best, n := "", 0
	for lang, c := range counts {
		if c > n || c == n && lang < best {
			best, n = lang, c
		}
	}
	if best == "Japanese" && counts["Japanese"] > 0 {
		return best
	}
	if n*2 < letters { // mostly Latin (or mixed): no hint
		return ""
	}
	return best
}

// Revision is a memory replaced by a newer version (a supersede: Old stays
// in the store as history, linked from New). The model never makes one of
// a memory a person wrote (see Personal).
type Revision struct {
	Scope chat.Scope
	Dir   string // the project folder for chat.ScopeProject
	Old   memory.Entry
	New   memory.Entry
}

// Forgotten is a memory that consolidation or the model forgot, or
// proposes to forget (when a person wrote it), with the reason given.
type Forgotten struct {
	Scope  chat.Scope
	Dir    string
	Entry  memory.Entry
	Reason string
}

// MemoriesRevised reports what consolidation or a memory tool changed
// besides adding: memories updated (with history), memories forgotten
// (UndoForget brings one back) and forgets proposed for memories a person
// wrote, which stay live until AcceptForget (or DismissForget).
type MemoriesRevised struct {
	ChatID    string
	Updated   []Revision
	Forgotten []Forgotten
	Proposed  []Forgotten
}

// Chat implements Event.
func (e MemoriesRevised) Chat() string { return e.ChatID }

// Personal reports whether a memory is the person's: written or kept by
// them, imported, or pinned. The model never changes or forgets one: it
// proposes, and the person decides.
func Personal(e memory.Entry) bool {
	return e.Pinned || e.Source == memory.SourceUser || e.Source == memory.SourceImport || e.Source == ""
}

// Outcome is what applying a distillation's operations did.
type Outcome struct {
	Saved     map[chat.Scope][]memory.Entry // new memories, by store
	Revised   MemoriesRevised
	Suggested int      // held as suggestions (CaptureAsk)
	Secrets   int      // dropped: they look like secrets
	Ignored   int      // operations on ids the distiller was not shown
	Errs      []string // what could not be done
}

// carryOut carries out a distillation's operations through the stores, with
// history always kept: an add is stored (deduplicated: an exact restatement
// changes nothing but the memory's date), an update supersedes the shown
// memory unless a person wrote it (then it is held as a suggestion that
// would replace it), a forget forgets a memory the model or distillation wrote (its
// text leaves the file at once; UndoForget adds it again from the event)
// and only proposes to forget one a person wrote. Operations on ids that were
// not shown are ignored; texts that look like secrets are dropped. In
// CaptureAsk mode adds and updates become suggestions and every forget a
// proposal.
func (p *Pipeline) carryOut(t Turn, shown []chat.Hit, cands []candidate) Outcome {
	res := Outcome{Saved: map[chat.Scope][]memory.Entry{}, Revised: MemoriesRevised{ChatID: t.ChatID}}
	byID := map[string]Shown{}
	for _, h := range shown {
		byID[h.Entry.ID] = Shown{Target: t.store(h.Scope), Entry: h.Entry}
	}
	batches := map[chat.Scope][]memory.Entry{}
	var order []chat.Scope
	for _, c := range cands {
		if c.Op != opForget {
			if _, secret := memory.Secret(c.Text); secret {
				res.Secrets++
				continue
			}
		}
		var target Shown
		if c.Op == opUpdate || c.Op == opForget {
			var ok bool
			if target, ok = byID[c.ID]; !ok {
				res.Ignored++
				continue
			}
		}
		switch {
		case c.Op == opAdd && t.Mode == chat.CaptureAsk:
			if p.suggest(t, c, nil) {
				res.Suggested++
			}
		case c.Op == opAdd:
			scope := t.store(c.Scope).Scope
			if _, ok := batches[scope]; !ok {
				order = append(order, scope)
			}
			batches[scope] = append(batches[scope], memory.Entry{Kind: c.Kind, Text: c.Text, Source: memory.SourceAuto})
		case c.Op == opUpdate && SameText(target.Entry.Text, c.Text):
			// a restatement: nothing to change
		case c.Op == opUpdate && (t.Mode == chat.CaptureAsk || Personal(target.Entry)):
			// the person's own memory is never rewritten by the model: the
			// new text waits for them (Keep mine, Use the new one, Edit)
			if p.suggest(t, c, &target) {
				res.Suggested++
			}
		case c.Op == opUpdate:
			rev, err := Supersede(target, c.Kind, c.Text, memory.SourceAuto)
			if err != nil {
				res.Errs = append(res.Errs, err.Error())
				continue
			}
			res.Revised.Updated = append(res.Revised.Updated, rev)
		case c.Op == opForget:
			f := Forgotten{Scope: target.Target.Scope, Dir: target.Target.Dir, Entry: target.Entry, Reason: c.Reason}
			if Personal(target.Entry) || t.Mode == chat.CaptureAsk {
				p.Propose(f)
				res.Revised.Proposed = append(res.Revised.Proposed, f)
				continue
			}
			if _, err := Forget(target.Target, target.Entry.ID); err != nil {
				res.Errs = append(res.Errs, err.Error())
				continue
			}
			res.Revised.Forgotten = append(res.Revised.Forgotten, f)
		}
	}
	for _, scope := range order {
		out, err := t.store(scope).Store.AddAll(batches[scope])
		if err != nil {
			res.Errs = append(res.Errs, err.Error())
			continue
		}
		for _, r := range out {
			switch {
			case r.Err != nil:
				res.Errs = append(res.Errs, r.Err.Error())
			case r.New:
				res.Saved[scope] = append(res.Saved[scope], r.Entry)
			}
		}
	}
	return res
}

// Supersede replaces a memory with a new version, keeping the old as
// history.
func Supersede(target Shown, kind memory.Kind, text string, src memory.Source) (Revision, error) {
	ne, err := target.Target.Store.Supersede(target.Entry.ID, memory.Entry{Kind: kind, Text: text, Source: src})
	if err != nil {
		return Revision{}, err
	}
	return Revision{Scope: target.Target.Scope, Dir: target.Target.Dir, Old: target.Entry, New: ne}, nil
}

// SameText reports whether two memory texts say the same, ignoring case
// and spacing.
func SameText(a, b string) bool {
	return strings.EqualFold(OneLine(a), OneLine(b))
}

// Clip cuts s to n runes with "…".
func Clip(s string, n int) string {
	s = OneLine(s)
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}
