//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSMB is the finished process's peak resident memory in MB, from its
// rusage (kilobytes on Linux, bytes on macOS).
func peakRSSMB(ps *os.ProcessState) (float64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, false
	}
	kb := float64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		kb /= 1024
	}
	return kb / 1024, true
}
