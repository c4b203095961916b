package fuzzrun

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTuneRuntime: a campaign process runs on one thread and collects at
// GOGC=400, unless the environment sets GOMAXPROCS or GOGC.
func TestTuneRuntime(t *testing.T) {
	procs, gc := runtime.GOMAXPROCS(0), debug.SetGCPercent(100)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs); debug.SetGCPercent(gc) })

	runtime.GOMAXPROCS(2)
	t.Setenv("GOMAXPROCS", "")
	t.Setenv("GOGC", "")
	tuneRuntime()
	assert.Equal(t, 1, runtime.GOMAXPROCS(0))
	assert.Equal(t, campaignGCPercent, debug.SetGCPercent(100))

	runtime.GOMAXPROCS(2)
	t.Setenv("GOMAXPROCS", "2")
	t.Setenv("GOGC", "100")
	tuneRuntime()
	assert.Equal(t, 2, runtime.GOMAXPROCS(0), "GOMAXPROCS from the environment stays")
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC from the environment stays")
}
