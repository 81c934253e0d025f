package agent

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"engram/memory"
)

// Consolidation limits.
const (
	relatedMax     = 10  // existing memories shown to the distiller at most
	relatedQueries = 8   // queries (the message and its sentences) at most
	relatedRunes   = 500 // runes of one shown memory's text at most
)

// shownMemory is an existing memory the distiller was shown, with its store.
type shownMemory struct {
	ss *storeState
	e  memory.Entry
}

// related finds the existing memories of the stores that relate to a turn:
// the user's message and each of its sentences (the candidate facts) are
// queries; the best relatedMax hits over all of them, pinned ones included,
// are returned best first.
func related(stores []*storeState, user string) []RecalledHit {
	queries := append([]string{user}, sentences(user)...)
	if len(queries) > relatedQueries {
		queries = queries[:relatedQueries]
	}
	best := map[string]RecalledHit{}
	for _, q := range queries {
		for _, h := range bestHits(stores, q, nil, relatedMax, false) {
			key := string(h.Scope) + "/" + h.Entry.ID
			if old, ok := best[key]; !ok || h.Score > old.Score {
				best[key] = h
			}
		}
	}
	out := make([]RecalledHit, 0, len(best))
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
func relatedLine(h RecalledHit) string {
	text := strings.Join(strings.Fields(memory.Defuse(h.Entry.Text)), " ")
	if rs := []rune(text); len(rs) > relatedRunes {
		text = string(rs[:relatedRunes-1]) + "…"
	}
	return fmt.Sprintf("id=%s date=%s kind=%s scope=%s: %s", h.Entry.ID,
		memory.Confirmed(h.Entry).UTC().Format(time.DateOnly), h.Entry.Kind, h.Scope, text)
}

// distillInput is the user message of a distillation call: the language
// to write in, the related memories, one a line, then the turn.
func distillInput(hits []RecalledHit, user, excerpt string) string {
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
// in the store as history, linked from New). Notice is set when Old was
// written or kept by a person, or pinned: the UI must say so.
type Revision struct {
	Scope  Scope
	Dir    string // the project folder for ScopeProject
	Old    memory.Entry
	New    memory.Entry
	Notice bool
}

// Forgotten is a memory that consolidation or the model forgot, or
// proposes to forget (when a person wrote it), with the reason given.
type Forgotten struct {
	Scope  Scope
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

// personal reports whether a memory is the person's: written or kept by
// them, imported, or pinned. The model never changes one without history
// and a visible notice.
func personal(e memory.Entry) bool {
	return e.Pinned || e.Source == memory.SourceUser || e.Source == memory.SourceImport || e.Source == ""
}

// applied is the outcome of applying a distillation's operations.
type applied struct {
	saved     map[Scope][]memory.Entry
	revised   MemoriesRevised
	suggested int
	secrets   int
	ignored   int // operations on ids the distiller was not shown
	errs      []string
}

// apply carries out a distillation's operations through the stores, with
// history always kept: an add is stored (deduplicated: an exact restatement
// changes nothing but the memory's date), an update supersedes the shown
// memory, a forget forgets a memory the model or distillation wrote (its
// text leaves the file at once; UndoForget adds it again from the event)
// and only proposes to forget one a person wrote. Operations on ids that were
// not shown are ignored; texts that look like secrets are dropped. In
// CaptureAsk mode adds and updates become suggestions and every forget a
// proposal.
func (a *Agent) apply(chatID string, proj *projectState, mode CaptureMode, shown []RecalledHit, cands []candidate) applied {
	res := applied{saved: map[Scope][]memory.Entry{}, revised: MemoriesRevised{ChatID: chatID}}
	byID := map[string]shownMemory{}
	for _, h := range shown {
		ss := a.global
		if h.Scope == ScopeProject && proj != nil {
			ss = proj.store
		}
		byID[h.Entry.ID] = shownMemory{ss: ss, e: h.Entry}
	}
	batches := map[*storeState][]memory.Entry{}
	var order []*storeState
	for _, c := range cands {
		if c.Op != opForget {
			if _, secret := memory.Secret(c.Text); secret {
				res.secrets++
				continue
			}
		}
		var target shownMemory
		if c.Op == opUpdate || c.Op == opForget {
			var ok bool
			if target, ok = byID[c.ID]; !ok {
				res.ignored++
				continue
			}
		}
		switch {
		case c.Op == opAdd && mode == CaptureAsk:
			a.suggest(chatID, proj, c, nil)
			res.suggested++
		case c.Op == opAdd:
			ss := a.global
			if c.Scope == ScopeProject && proj != nil {
				ss = proj.store
			}
			if _, ok := batches[ss]; !ok {
				order = append(order, ss)
			}
			batches[ss] = append(batches[ss], memory.Entry{Kind: c.Kind, Text: c.Text, Source: memory.SourceAuto})
		case c.Op == opUpdate && sameText(target.e.Text, c.Text):
			// a restatement: nothing to change
		case c.Op == opUpdate && mode == CaptureAsk:
			a.suggest(chatID, proj, c, &target)
			res.suggested++
		case c.Op == opUpdate:
			rev, err := supersede(target, c.Kind, c.Text, memory.SourceAuto)
			if err != nil {
				res.errs = append(res.errs, err.Error())
				continue
			}
			res.revised.Updated = append(res.revised.Updated, rev)
		case c.Op == opForget:
			f := Forgotten{Scope: target.ss.scope, Dir: target.ss.dir, Entry: target.e, Reason: c.Reason}
			if personal(target.e) || mode == CaptureAsk {
				a.propose(f)
				res.revised.Proposed = append(res.revised.Proposed, f)
				continue
			}
			if _, err := target.ss.st.Forget(target.e.ID); err != nil {
				res.errs = append(res.errs, err.Error())
				continue
			}
			res.revised.Forgotten = append(res.revised.Forgotten, f)
		}
	}
	for _, ss := range order {
		out, err := ss.st.AddAll(batches[ss])
		if err != nil {
			res.errs = append(res.errs, err.Error())
			continue
		}
		for _, r := range out {
			switch {
			case r.Err != nil:
				res.errs = append(res.errs, r.Err.Error())
			case r.New:
				res.saved[ss.scope] = append(res.saved[ss.scope], r.Entry)
			}
		}
	}
	return res
}

// supersede replaces a memory with a new version, keeping the old as
// history.
func supersede(target shownMemory, kind memory.Kind, text string, src memory.Source) (Revision, error) {
	ne, err := target.ss.st.Supersede(target.e.ID, memory.Entry{Kind: kind, Text: text, Source: src})
	if err != nil {
		return Revision{}, err
	}
	return Revision{Scope: target.ss.scope, Dir: target.ss.dir, Old: target.e, New: ne, Notice: personal(target.e)}, nil
}

// sameText reports whether two memory texts say the same, ignoring case
// and spacing.
func sameText(a, b string) bool {
	return strings.EqualFold(oneLineText(a), oneLineText(b))
}

// report emits the events of an applied distillation.
func (a *Agent) report(chatID string, res applied) {
	for _, scope := range []Scope{ScopeGlobal, ScopeProject} {
		if len(res.saved[scope]) > 0 {
			a.emit(MemoriesSaved{ChatID: chatID, Scope: scope, Entries: res.saved[scope]})
		}
	}
	rv := res.revised
	if len(rv.Updated)+len(rv.Forgotten)+len(rv.Proposed) > 0 {
		a.emit(rv)
	}
	for _, r := range rv.Updated {
		if r.Notice {
			a.emit(Notice{ChatID: chatID, Text: fmt.Sprintf("A memory you wrote was updated: %q is now %q. "+
				"The earlier version is kept in its history.", clip(r.Old.Text, 80), clip(r.New.Text, 80))})
		}
	}
	if res.suggested > 0 {
		a.emit(SuggestionsChanged{ChatID: chatID})
	}
	if res.secrets > 0 {
		a.emit(Notice{ChatID: chatID, Text: fmt.Sprintf("%d memory not saved: it looks like a secret "+
			"(a password, key or token).", res.secrets)})
	}
	changed := len(res.saved) > 0 || len(rv.Updated)+len(rv.Forgotten)+len(rv.Proposed) > 0 || res.suggested > 0
	if len(res.errs) > 0 && !changed {
		a.emit(MemoriesSaved{ChatID: chatID, Scope: ScopeGlobal,
			Err: fmt.Errorf("distill: no memory could be saved: %s", strings.Join(res.errs, "; "))})
	}
}

// clip cuts s to n runes with "…".
func clip(s string, n int) string {
	s = oneLineText(s)
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}

// errNoProposal is returned for a forget proposal that is not pending.
var errNoProposal = errors.New("no such forget proposal")
