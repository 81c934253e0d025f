package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"engram/memory/durable"
)

// DeviceID returns this device's ID, kept in stateDir/device-id together
// with the fingerprint of the machine it was made on (see
// machineFingerprint): created (random, like an entry ID) the first time
// and read after that. A device-id file made on another machine (a state
// folder copied with a home directory, or synced) or before fingerprints
// were kept is replaced by a new ID, so two machines never share one.
func DeviceID(stateDir string) (string, error) {
	return deviceID(stateDir, machineFingerprint())
}

func deviceID(stateDir, machine string) (string, error) {
	path := filepath.Join(stateDir, "device-id")
	data, err := os.ReadFile(path)
	if err == nil {
		id, rest, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
		if id = strings.TrimSpace(id); validID(id) && strings.TrimSpace(rest) == "machine "+machine {
			return id, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("device ID: %w", err)
	}
	id := NewID()
	if err := durable.WriteFileAtomic(path, []byte(id+"\nmachine "+machine+"\n")); err != nil {
		return "", fmt.Errorf("device ID: %w", err)
	}
	return id, nil
}

// newReplica returns a new replica ID for a device: the device's ID and a
// random part, so a person reading memory.json can still tell the
// machines apart.
func newReplica(device string) string {
	if len(device) > 64-7 {
		device = device[:64-7]
	}
	return device + "-" + NewID()[:6]
}

// machineFingerprint identifies this machine without giving away its
// system ID: a hash of the system's machine ID (see systemMachineID), or
// of the host name where there is none.
var machineFingerprint = sync.OnceValue(func() string {
	id := systemMachineID()
	if id == "" {
		id, _ = os.Hostname()
		id = "host:" + id
	}
	return contentID("machine", id)
})

// hostDevice names the device of a store without a state directory in
// the replica IDs it mints: derived from the host name, so a person can
// tell machines apart.
func hostDevice() string {
	h, _ := os.Hostname()
	return "h" + contentID("host", h)[:7]
}
