//go:build unix

package suite

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used so
// far, or 0 where it cannot be read. A measurement on a machine shared
// with other work compares CPU time, which the load does not inflate as
// much as it does wall time (BENCHMARKS.md, "Issue 21's suite: where the
// time goes").
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
