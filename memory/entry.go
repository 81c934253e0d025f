package memory

import (
	"fmt"
	"strings"
	"time"
)

// Kind says what sort of thing a memory is. The order of strength, used by
// dedupe (a stronger kind wins) and eviction (the weakest goes first), is
// preference > correction > lesson > fact.
type Kind string

// The four kinds of memory.
const (
	KindPreference Kind = "preference"
	KindCorrection Kind = "correction"
	KindLesson     Kind = "lesson"
	KindFact       Kind = "fact"
)

// Kinds lists every kind, strongest first.
var Kinds = []Kind{KindPreference, KindCorrection, KindLesson, KindFact}

// kindAliases maps the names people and models use to a Kind.
var kindAliases = map[string]Kind{
	"preference":     KindPreference,
	"preferences":    KindPreference,
	"pref":           KindPreference,
	"like":           KindPreference,
	"style":          KindPreference,
	"correction":     KindCorrection,
	"corrections":    KindCorrection,
	"feedback":       KindCorrection,
	"fix":            KindCorrection,
	"lesson":         KindLesson,
	"lessons":        KindLesson,
	"lesson-learned": KindLesson,
	"lesson_learned": KindLesson,
	"experience":     KindLesson,
	"insight":        KindLesson,
	"fact":           KindFact,
	"facts":          KindFact,
	"project":        KindFact,
	"note":           KindFact,
	"info":           KindFact,
	"context":        KindFact,
}

// ParseKind turns a kind name or one of its aliases (pref, feedback,
// experience, lesson-learned, project…) into a Kind. Case and surrounding
// space are ignored. An unknown name is ErrUnknownKind.
func ParseKind(s string) (Kind, error) {
	k, ok := kindAliases[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		return "", fmt.Errorf("%w %q (want preference, correction, lesson or fact)", ErrUnknownKind, s)
	}
	return k, nil
}

// Strength ranks a kind: preference 4, correction 3, lesson 2, fact 1, and 0
// for anything else.
func (k Kind) Strength() int {
	switch k {
	case KindPreference:
		return 4
	case KindCorrection:
		return 3
	case KindLesson:
		return 2
	case KindFact:
		return 1
	}
	return 0
}

// Source says where a memory came from.
type Source string

// The sources of a memory.
const (
	SourceUser   Source = "user"   // typed by a person (inspector, CLI)
	SourceTool   Source = "tool"   // written by the model through memory_write
	SourceAuto   Source = "auto"   // distilled after a turn
	SourceImport Source = "import" // imported from a file
)

// Entry is one memory. Its ID is stable for life; a correction that replaces
// a fact links the two through Supersedes/SupersededBy so the old text stays
// as history.
type Entry struct {
	ID           string    `json:"id"`
	Kind         Kind      `json:"kind"`
	Text         string    `json:"text"`
	Source       Source    `json:"source,omitempty"`
	Pinned       bool      `json:"pinned,omitempty"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	LastUsed     time.Time `json:"last_used,omitzero"`
	Uses         int       `json:"uses,omitempty"`
	Supersedes   string    `json:"supersedes,omitempty"`
	SupersededBy string    `json:"superseded_by,omitempty"`
	// Deleted marks a tombstone: the entry was forgotten at this time. It is
	// kept in the file for a while so other writers and sync tools see the
	// deletion, and is never shown or recalled.
	Deleted time.Time `json:"deleted,omitzero"`
	// Absent marks a tombstone no one asked for: a copy that had seen the
	// entry lacked it (a hand deletion, or a copy from a machine that only
	// seemed to have seen it, see forkedLocked), and the store took that
	// for a deletion.
	Absent bool `json:"absent,omitempty"`
	// Rev is the version of the entry's last change (see Rev): which
	// device made it, and when in that device's count. Stores set it.
	Rev Rev `json:"rev,omitzero"`
	// Prev is the Rev of the version the last change replaced (zero for a
	// new entry): a copy holding that version takes this one for the
	// later even when its Vector cannot tell.
	Prev Rev `json:"prev,omitzero"`
}

// Live reports whether the entry is neither deleted nor superseded, that is
// whether it may be shown as current and recalled.
func (e Entry) Live() bool { return e.Deleted.IsZero() && e.SupersededBy == "" }
