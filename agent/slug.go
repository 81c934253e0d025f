package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// projectSlug names a project folder's memory directory: the folder's base
// name made safe, and a hash of its absolute path so two folders with the
// same name do not share memories ("engram-1a2b3c4d").
func projectSlug(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	sum := sha256.Sum256([]byte(abs))
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(abs)) {
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
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "project"
	}
	return name + "-" + hex.EncodeToString(sum[:4])
}
