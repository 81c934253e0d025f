package index

import "time"

// Doc is one document as the index sees it (a memory entry; the comments
// of this package say entry and document alike): its text and what ranking
// weighs besides the text.
type Doc struct {
	ID   string
	Text string
	// Label is indexed with every chunk of Text, so that searching for it
	// finds the document (a memory's kind, in English and Chinese).
	Label string
	// Boost is added to the factor the score is multiplied by (a memory's
	// kind: preferences and corrections weigh more).
	Boost float32
	// Pinned, Uses and LastUsed boost a document a person pinned or that
	// was used recently.
	Pinned   bool
	Uses     int
	LastUsed time.Time
	// Created groups documents saved in the same second (context); the
	// later of Created and Updated is the document's time.
	Created, Updated time.Time
}
