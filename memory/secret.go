package memory

import (
	"errors"
	"fmt"

	"engram/memory/internal/secret"
)

// ErrSecret: the text looks like a credential (a key, token, password or
// private key), which is never stored from the model or distillation and
// only on a person's explicit confirmation otherwise.
var ErrSecret = errors.New("not saved: it looks like a secret")

// Secret reports whether text holds a credential, and what it looks like
// ("a password", "a key or token (github-pat)"): the known key and token
// formats of gitleaks' rule set, private-key blocks, keys written with
// spaces or dashes inside, statements that name and give a password, PIN
// or key in English, Chinese and the common European languages ("the
// password for the router is …", "Passwort ist …", "密码是…"), connection
// strings with a password, and long hex or random tokens.
func Secret(text string) (what string, found bool) {
	return secret.Find(text)
}

// checkSecret refuses a text that looks like a secret when it comes from
// the model or distillation; people and imports decide for themselves (the
// CLI and the inspector ask first).
func checkSecret(text string, src Source) error {
	if src != SourceAuto && src != SourceTool {
		return nil
	}
	if what, ok := Secret(text); ok {
		return fmt.Errorf("%w (%s)", ErrSecret, what)
	}
	return nil
}
