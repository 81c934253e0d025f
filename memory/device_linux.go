package memory

import (
	"os"
	"strings"
)

// systemMachineID is the machine ID systemd or D-Bus made at install
// time, "" if there is none.
func systemMachineID() string {
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if data, err := os.ReadFile(p); err == nil {
			if id := strings.TrimSpace(string(data)); id != "" {
				return id
			}
		}
	}
	return ""
}
