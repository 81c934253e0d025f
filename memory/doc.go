// Package memory is Engram's memory engine: the entries it remembers, the
// Store that keeps them in a human-editable memory.json, and recall over
// them. It knows nothing of models, chats or windows.
//
// # The file
//
// A store is one JSON file, {"version": 2, "seen": {...}, "entries": [...]},
// pretty-printed with entries in a stable order (oldest first), so a hand
// edit diffs cleanly. Version 1 files (the same without versions) and the
// legacy shapes (a bare array of strings; {"entries": [{"kind", "text",
// "source", "ts"}]}) are read, backed up as <file>.legacy-<time> and
// rewritten as version 2. Files are read leniently (ParseFile): HuJSON
// comments and trailing commas, common time forms, numbers and booleans
// written as strings; two entries with one ID are both kept. Deleted
// entries stay in the file as tombstones for Options.TombstoneTTL so other
// writers and sync tools see the deletion; replaced entries stay as
// history linked by Supersedes/SupersededBy.
//
// # Versions and merge
//
// The file is made to be synced by tools that know nothing of it
// (Syncthing, Dropbox, Nextcloud, git), so a store must merge any copy of
// it, in any order, without trusting wall clocks or modification times.
// The technique is the one of state-based replication: per-device counters
// and a version vector. Each change of an entry gets a Rev: the ID of the
// device that made it (Options.StateDir/device-id), that device's counter
// (raised to the clock in milliseconds where that is ahead, so it also
// orders the device's changes across restarts, but never compared with
// another device's), and a checksum of the content, so that a hand edit
// that leaves the rev as it was is still told from the version it started
// from. The file's "seen" is a Vector: for each device, the counter up to
// which the file holds (or has replaced or deleted) that device's changes.
// A hybrid logical clock per entry would order changes as well, but could
// not say whether a copy that lacks an entry had ever seen it; the vector
// can.
//
// Merging a copy (Reload, Open, a conflict copy, MergeFile, Repair) takes,
// entry by entry, the version that saw the other (the other's Rev is
// covered by its side's Vector); of two changes by one device, the later.
// An entry one side lacks is a deletion only if that side had seen its
// version, so a copy that never had it (a sync tool's older copy, an
// empty file) deletes nothing, and a hand deletion in the file becomes a
// tombstone. Concurrent edits (neither saw the other) resolve the same way
// on every device: the later Updated, then a live version over a
// deletion, then the greater Rev; the losing text is kept as superseded
// history under an ID derived from its content, so every device makes the
// same one. Times from the future are clamped to the present on read.
// Uses and LastUsed are not versioned: they merge by maximum.
//
// # The journal
//
// With a StateDir (cmd/ passes $XDG_STATE_HOME/engram; nothing here reads
// the environment), every change is appended, as the whole entry, to the
// device's journal (StateDir/journal/<store>.jsonl) and fsynced before the
// file is written, under a lock of its own in the state directory. Open
// merges the journal's records into what it reads, so this device's
// changes come back when memory.json was replaced by a copy lacking them,
// deleted, or does not parse. The journal keeps the latest record of each
// entry and drops, once it is longer than 2,048 lines, the records the
// file holds or has seen that are older than Options.JournalKeep (a week):
// the time a sync tool may take to bring back a stale copy. About 270
// bytes per add.
//
// # Conflict copies
//
// Conflict copies beside the file (IsConflictCopy: Syncthing's
// memory.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.json, Dropbox's and
// Nextcloud's "memory (conflicted copy …).json", ownCloud's
// memory_conflict-….json) are merged on Open and Reload by the same rules,
// then moved to StateDir/backups; TakeMergeReport counts them for the
// app's notice. One that does not parse is left in place and reported.
//
// # Durability
//
// Every change is a read-modify-write under the journal's lock and an
// exclusive lock on <file>.lock (package durable: flock, or LockFileEx on
// Windows; a lock file deleted underneath is opened again): the store
// re-reads the file if it changed since its last read or write (a stat
// decides, so this is cheap), merges it, applies the change, journals it
// and replaces the file atomically (temporary file in the same directory,
// fsync, rename, fsync of the directory where supported; mode 0600,
// directory 0700). Goroutines, Stores and processes writing one file never
// lose each other's entries, and a writer killed at any point leaves
// either the old or the new file. A change that fails (bad input, full
// disk, a read-only file) changes nothing, in memory or on disk, unless
// the journal holds it.
//
// A file that does not parse is never moved, overwritten or taken for an
// empty store: Err returns an *UnparsableError saying where ("memory.json
// line 12, column 5: …"), reads serve what the store had (after Open, the
// journal's entries), changes go to the journal only (and fail without
// one) until the file parses again, and Repair writes a fixed file from
// what can be read of it, keeping the broken one as a backup. A file being
// saved in place (empty, or cut off) is read again until two reads agree
// before it is judged.
//
// # Policy
//
// Add deduplicates: texts are compared after normalising (lower case,
// full-width folded, white space and punctuation dropped), equal or
// contained within rune thresholds (DedupeMinRunes); a duplicate refreshes
// the existing entry and the stronger kind wins. A store holds at most
// Options.MaxEntries entries, but the cap never deletes what a person
// wrote: a change that adds entries over it evicts (as tombstones) only
// unpinned auto entries, superseded history first, then the weakest kind,
// then the least recently used or updated; with none left it fails with a
// *FullError ("memory is full: 1,000 of 1,000; review old memories"). A
// file loaded over the cap evicts nothing.
//
// # Watching the file
//
// Store.Reload merges the file's current contents and the conflict copies
// beside it, and is cheap when nothing changed; Store.ChangedOnDisk tells a
// watcher whether a file event was another writer's change (or a conflict
// copy to merge) or the echo of the store's own write; OnChange listeners
// run after every change, own or reloaded.
//
// # Concurrency
//
// Store and EntryIndex methods are safe for concurrent use from any goroutine.
// Store.Recall searches an EntryIndex the store builds on first use and keeps
// current on every change.
//
// # Parts
//
// The engine's parts live in sub-packages with one job each, and none of
// them imports memory: internal/analysis turns text into terms (tokenizer,
// stemmer, stopwords, width folding), internal/index is the BM25 index and
// search over chunks of its own Doc type, internal/lexicon is the embedded
// Chinese–English dictionary (CC-CEDICT) the index translates queries and
// folds traditional script with, and durable keeps files safe (lock and
// atomic write per OS, stamps) for the store and for agent's chats and
// config. Only memory itself may import the internal ones.
package memory
