//go:build !linux && !windows && !darwin

package memory

// systemMachineID is "" where the system keeps no machine ID Engram
// knows of: the host name stands in (see machineFingerprint).
func systemMachineID() string { return "" }
