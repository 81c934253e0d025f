// Package memory is Engram's memory engine: the entries it remembers, the
// Store that keeps them in a human-editable memory.json, and recall over
// them. It knows nothing of models, chats or windows.
//
// # Main types
//
// An Entry is one memory: its text, Kind, Source, pin, times and links to
// the versions it replaced. A Store is one memory file (the global store or
// a project's): Open it, change it with Add, Update, Remove, Supersede and
// the others, read it with List, Get and History, rank it with Recall (for
// the agent) or Search (for a person typing a query), and keep it in step
// with the file with Reload. RenderBlock renders recalled Hits as the block the
// agent injects into its prompt.
//
// Remove and Forget differ in what they keep. Remove takes the text out of
// the file at once (a tombstone keeps the ID and the times, so the
// deletion syncs) and out of the journal and the backups, and keeps it in
// this device's trash (Trash, never synced; in memory only for a store
// without a StateDir), from which Restore brings it back as a new version
// that outranks the tombstone, for as long as the tombstone is kept (30
// days) or until EmptyTrash. Forget, and ForgetSecrets for every entry
// the secret check flags, keep nothing: the text of the entry and of its
// history leaves the file, the journal, the backups and the trash, and the
// tombstone outranks any older copy of the file that comes back. Copies
// outside the store's files (a chat's record of a tool result) are the
// caller's to scrub.
//
// Every method of Store is safe from any goroutine. Reads are served from
// the snapshot the last write published and never wait for a write; writes
// take turns, and only they wait for the file's locks (including another
// process's). Nothing here reads the environment: cmd/ resolves the paths
// and passes them in Options.
//
// # Sync
//
// memory.json is made to be synced by tools that know nothing of it, so
// every copy carries Revs on its entries and a Vector ("seen") of the
// changes it reflects, and any two copies merge the same way on every
// device (see Vector). The invariant: a file's seen never covers a change
// the file's own content does not reflect (as a live entry, a later
// version of it, or a tombstone), and a device raises its own entry in
// seen only over changes it can prove it still holds — its journal, in
// the state directory, names the replica it stamps with and holds every
// change of it; whenever that proof is gone, the store mints a new
// replica. Device IDs are bound to the machine (DeviceID), so a copied
// state folder does not clone one.
//
// # Where things live
//
//   - store.go: Options, Store, Open, Close; store_read.go: the snapshot
//     and the reads; store_write.go: the write turn and the write path;
//     store_merge.go: Reload and the merge with the file on disk;
//     store_change.go: the changes (Add, Update, Remove, ...).
//   - store_encode.go, store_file.go, lenient.go, legacy.go: the file
//     format, its writing and its lenient reading.
//   - version.go: Revs, Vectors and the merge rules (mergeCopy);
//     journal.go: the device's journal; device*.go: the device ID, the
//     machine's fingerprint and the store's replica; conflict.go: sync
//     tools' conflict copies; repair.go: Repair and MergeFile.
//   - dedupe*.go and evict.go: the policy (duplicates, the cap); forget.go,
//     validate.go, secret.go: what may be stored and how it goes for good;
//     trash.go: what Remove keeps for Restore; purge.go: taking texts out
//     of the journal, the trash and the backups.
//   - recall.go (EntryIndex), prefix.go (Complete), search.go (Search),
//     block.go: recall and the injection block; embed.go (Embedder,
//     Builtin) and embed_index.go: semantic recall, a dense signal fused
//     with BM25 (see below).
//
// The engine's parts live in sub-packages with one job each, and none of
// them imports memory: internal/analysis turns text into terms,
// internal/index is the BM25 index over chunks, internal/lexicon is the
// embedded Chinese–English dictionary, internal/dense the built-in word
// vectors and the set of chunk vectors, and durable keeps files safe (lock
// and atomic write per OS) for the store and for agent's chats and config.
// Only memory itself may import the internal ones.
//
// # Semantic recall
//
// With an Embedder (Options.Embedder, Store.SetEmbedder; Builtin is the
// one in the binary), recall fuses a dense signal with BM25: each signal
// brings its best 50 entries, and they rank by BM25 / the query's best
// BM25 + 0.5 × the cosine min-max scaled over them (RecallOptions.Semantic
// sets the weight). The query's vector is the message's plus the mean of
// the earlier messages'; the store's mean vector is subtracted before
// comparing. The vectors of the chunks are computed in the background when
// the index is built and after every change; until they are ready, recall
// is by words alone, so the first recall never waits (WaitSemantic does).
// A hit that only the meaning brought carries its cosine in Hit.Meaning.
package memory
