// Package durable keeps files safe on disk: an atomic replace that a crash
// cannot tear (WriteFileAtomic), an exclusive advisory lock between
// processes (Lock, per OS), and a cheap stamp that tells whether a file
// changed since it was last seen (Stamp).
//
// The memory store uses it for memory.json, and agent for its chats and
// config. It knows nothing of what the files hold: it imports only the
// standard library, never memory or agent.
package durable
