// Package memory is Engram's memory engine: the entries it remembers, the
// Store that keeps them in a human-editable memory.json, and recall over
// them. It knows nothing of models, chats or windows.
//
// # The file
//
// A store is one JSON file, {"version": 1, "entries": [...]}, pretty-printed
// with entries in a stable order (oldest first), so a hand edit diffs
// cleanly. Legacy shapes (a bare array of strings; {"entries": [{"kind",
// "text", "source", "ts"}]}) are read, backed up and rewritten in the
// current shape. Deleted entries stay in the file as tombstones for
// Options.TombstoneTTL so other writers and sync tools see the deletion;
// replaced entries stay as history linked by Supersedes/SupersededBy.
//
// # Durability
//
// Every change is a read-modify-write under an exclusive flock on
// <file>.lock: the store re-reads the file if it changed since its last read
// or write (a stat decides, so this is cheap), merges by ID, applies the
// change and replaces the file atomically (temporary file in the same
// directory, fsync, rename, fsync of the directory; mode 0600, directory
// 0700; see package durable). Goroutines, Stores and processes writing one
// file never lose each other's entries, and a writer killed at any point
// leaves either the old or the new file. A change that fails (bad input, full disk) changes
// nothing, in memory or on disk.
//
// A file that does not parse is never taken for an empty store and never
// overwritten: it is moved to <file>.corrupt-<time> and the store reports a
// *CorruptError from Err until ClearErr.
//
// # Policy
//
// Add deduplicates: texts are compared after normalising (lower case,
// full-width folded, white space and punctuation dropped), equal or
// contained within rune thresholds (DedupeMinRunes); a duplicate refreshes
// the existing entry and the stronger kind wins. A store holds at most
// Options.MaxEntries entries; going over evicts (as tombstones) unpinned
// entries, superseded history first, then the weakest kind, then the least
// recently used or updated.
//
// # Watching the file
//
// Store.Reload merges the file's current contents and is cheap when nothing
// changed; Store.ChangedOnDisk tells a watcher whether a file event was
// another writer's change or the echo of the store's own write; OnChange
// listeners run after every change, own or reloaded.
//
// # Concurrency
//
// Store and Index methods are safe for concurrent use from any goroutine.
// Store.Recall searches an Index the store builds on first use and keeps
// current on every change.
//
// # Parts
//
// The engine's parts live in sub-packages with one job each, and none of
// them imports memory: internal/analysis turns text into terms (tokenizer,
// stemmer, stopwords, width folding), internal/index is the BM25 index and
// search over chunks of its own Doc type, internal/lexicon is the embedded
// Chinese–English dictionary (CC-CEDICT) the index translates queries and
// folds traditional script with, and durable keeps files safe
// (lock, atomic write, stamps) for the store and for agent's chats and
// config. Only memory itself may import the internal ones.
package memory
