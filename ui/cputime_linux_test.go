package ui

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread used (lock the goroutine
// to its thread first): unlike the wall clock it does not count the time
// the machine gave to other work.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
