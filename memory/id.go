package memory

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// idLen is the length of an entry ID: 10 characters of lower-case base32,
// 50 random bits.
const idLen = 10

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns a random, short, URL-safe entry ID ("k3xq7m2ad4").
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return idEncoding.EncodeToString(b[:])[:idLen]
}

// contentID derives a stable ID from content, for entries that arrive
// without one (legacy files, hand-written entries). Every process reading
// the same file derives the same ID, so two writers do not turn one
// hand-added line into two entries.
func contentID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return idEncoding.EncodeToString(h.Sum(nil))[:idLen]
}

// validID reports whether s can serve as an entry ID: 1 to 64 characters of
// letters, digits, '-' and '_'.
func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ProjectSlug names a project folder's memory directory: the folder's base
// name made safe (lower-case ASCII letters, digits, '-' and '_', at most 40)
// and a short hash of its absolute path, so two folders with the same name
// do not share memories ("engram-1a2b3c4d"). The agent and engramctl both use
// it, so they find the same store for the same folder.
func ProjectSlug(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	return slug(filepath.Base(abs), abs, "project")
}

// slug is name made safe (lower-case ASCII letters, digits, '-' and '_',
// at most 40; fallback when nothing is left) and a short hash of key.
func slug(name, key, fallback string) string {
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 40 {
			break
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		out = fallback
	}
	return out + "-" + hex.EncodeToString(sum[:4])
}

// GlobalPath is the global store inside Engram's config directory
// ($XDG_CONFIG_HOME/engram): <configDir>/memory.json.
func GlobalPath(configDir string) string { return filepath.Join(configDir, "memory.json") }

// ProjectPath is the store of one project folder inside Engram's config
// directory: <configDir>/projects/<ProjectSlug(projectDir)>/memory.json.
func ProjectPath(configDir, projectDir string) string {
	return filepath.Join(configDir, "projects", ProjectSlug(projectDir), "memory.json")
}
