//go:build unix

package properties_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far. The benchmarks
// report it per op beside the wall clock ("cpu-ns/op"), because on a shared
// machine the wall clock also counts the time the process waits for a CPU
// (BENCHMARKS.md, "How to measure").
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
