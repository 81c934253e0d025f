package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A device ID is kept on the machine that made it, and made anew on
// another one (a copied state folder) or from a file that names none (one
// written before IDs were bound to machines).
func TestDeviceIDBoundToTheMachine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := deviceID(dir, "machine-a")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := deviceID(dir, "machine-a"); again != first {
		t.Errorf("the same machine got %s, then %s", first, again)
	}
	other, _ := deviceID(dir, "machine-b")
	if other == first {
		t.Errorf("another machine kept the ID %s", first)
	}
	if err := os.WriteFile(filepath.Join(dir, "device-id"), []byte(first+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if unbound, _ := deviceID(dir, "machine-a"); unbound == first {
		t.Errorf("a device-id file without its machine was kept")
	}
	if r := newReplica(first); !strings.HasPrefix(r, first+"-") || !validID(r) {
		t.Errorf("replica %q of device %q", r, first)
	}
	if r := newReplica(strings.Repeat("x", 64)); !validID(r) {
		t.Errorf("replica of a 64-character device: %q", r)
	}
	if fp, again := machineFingerprint(), machineFingerprint(); fp == "" || fp != again {
		t.Errorf("machine fingerprint %q, then %q: want one, stable", fp, again)
	}
}
