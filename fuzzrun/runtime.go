package fuzzrun

import (
	"os"
	"runtime"
	"runtime/debug"
)

// campaignGCPercent is the GC percent of a campaign's processes: a run's
// live heap is small and a worker's memory budget (-worker-memory, a soft
// limit the runtime collects harder near; softLimit) is large, so
// collecting four times less often costs little memory and saves a
// collector that took a fifth of a worker's time. Past 400 the collector
// has under 5 % left to give while the heap keeps growing
// (docs/design.md, "A campaign's garbage collector").
const campaignGCPercent = 400

// tuneRuntime sets up this process for campaign work, unless the
// environment says otherwise (GOMAXPROCS, GOGC). A run is single-threaded
// (the model cluster runs no goroutines) and a campaign's parallelism is
// its workers, one process each; a process allowed more threads spends its
// time waking threads on other CPUs, for work that never runs in parallel,
// and flushing their TLBs when it returns memory (BENCHMARKS.md, "Campaign
// scaling").
func tuneRuntime() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(campaignGCPercent)
	}
}
