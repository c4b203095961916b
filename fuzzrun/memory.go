package fuzzrun

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"
)

// Worker memory: each worker process gets -worker-memory MiB. The Go
// runtime is told to collect harder as the heap nears it
// (debug.SetMemoryLimit, a soft limit), and a watchdog ends the worker
// with exitOOM once the heap's live objects pass it (the hard cap), after
// printing a fatal line and the stack of the run it was doing. The
// campaign turns that into an oom finding with the run's seed.
const (
	// DefaultWorkerMemory is -worker-memory's default, in MiB.
	DefaultWorkerMemory = 2048
	// Bounds of -worker-memory, in MiB.
	minWorkerMemory = 64
	maxWorkerMemory = 1 << 20
	// exitOOM is a worker's exit code when it passed its memory limit.
	exitOOM = 87
	// memoryPoll paces the watchdog.
	memoryPoll = 10 * time.Millisecond
)

// limitMemory caps this process's heap at mib MiB, reporting to w: the
// runtime's soft limit (softLimit) and a watchdog past the cap.
func limitMemory(mib int, w io.Writer) {
	limit := uint64(mib) << 20
	softLimit(mib)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		for range tick.C {
			metrics.Read(sample)
			if used := sample[0].Value.Uint64(); used > limit {
				outOfMemory(w, used, mib)
			}
		}
	}()
}

// softLimit tells the runtime to collect harder as this process's heap
// nears nine tenths of mib MiB (debug.SetMemoryLimit), or GOMEMLIMIT if
// the environment sets a lower one. It bounds the heap a high GC percent
// (tuneRuntime) lets grow, in a worker and in a -workers 1 campaign's own
// process alike.
func softLimit(mib int) {
	limit := uint64(mib) << 20
	soft := int64(limit - limit/10)
	if os.Getenv("GOMEMLIMIT") != "" {
		soft = min(soft, debug.SetMemoryLimit(-1))
	}
	debug.SetMemoryLimit(soft)
}

// outOfMemory reports the heap past its limit, with the stack of the run
// (the goroutine running properties' execute, the one that allocated),
// and exits.
func outOfMemory(w io.Writer, used uint64, mib int) {
	fmt.Fprintf(w, "fatal error: out of memory: the heap holds %d MiB, past this worker's limit of %d MiB (-worker-memory)\n\n", used>>20, mib)
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "converge/properties.execute(") {
			fmt.Fprintf(w, "%s\n\n", g)
		}
	}
	os.Exit(exitOOM)
}
