// Package durable keeps files safe on disk, for every package that writes
// one: atomic replace, locks between processes, and change stamps.
//
// WriteFileAtomic replaces a file so that a crash cannot tear it; Lock,
// Locker (a lock file that may be deleted underneath it) and OpenDirLock
// (a directory, which cannot be) keep processes in turn; a Stamp tells
// cheaply whether a file changed since it was last seen.
//
// Per OS: flock on Linux, macOS and the BSDs, LockFileEx on Windows (no
// lock elsewhere); directory fsync where the system supports it; on
// Windows a rename over a file another process holds open is retried
// briefly. Temporary files carry their writer's process ID, so a writer
// only removes those of writers that are gone (RemoveStaleTemps). A
// read-only file is never replaced (ErrReadOnly).
//
// The memory store uses it for memory.json and its journal, and agent for
// its chats and config. It knows nothing of what the files hold: it
// imports only the standard library and golang.org/x/sys, never memory or
// agent.
package durable
