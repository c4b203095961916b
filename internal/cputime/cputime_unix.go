//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the process's user and system CPU time so far, or zero
// when getrusage fails.
func Process() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
