//go:build !linux

package ui

import "time"

// threadCPU is not measured on this system: it returns 0.
func threadCPU() time.Duration { return 0 }
