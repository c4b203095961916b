package fuzzrun_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/fuzzrun/fuzzruntest"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runtimeScenario is the level-triggered ReplicaSet controller with
// resync, whose reconciler, made once a run, prints the settings of the
// process that runs it: its GC percent, GOMAXPROCS and memory limit.
func runtimeScenario() properties.Scenario {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "runtime", Resync: 30})
	build := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		gc := debug.SetGCPercent(-1)
		debug.SetGCPercent(gc)
		fmt.Fprintf(os.Stderr, "runtime of the run: GOGC=%d GOMAXPROCS=%d memory limit=%d\n", gc, runtime.GOMAXPROCS(0), debug.SetMemoryLimit(-1))
		return build(c)
	}
	return properties.Scenario{
		Name:   "runtime",
		Doc:    "level-triggered ReplicaSet controller with resync that prints its process's GC settings",
		Build:  worldOf(ctrl),
		Expect: []properties.Expectation{{Faults: faults.Mix{faults.KindDuplicate}}},
	}
}

// TestFuzzrunRuntime is the test binary's fuzzrun over runtimeScenario; it
// skips without fuzzrun's flags after --, as under go test.
func TestFuzzrunRuntime(t *testing.T) { fuzzrun.MainTest(t, runtimeScenario()) }

// TestCampaignProcessesTuneTheirRuntime runs campaigns through this test
// binary, in-process (-workers 1) and with worker processes (-workers 2):
// the process that runs the runs collects at GOGC=400 on one thread
// unless the environment sets GOGC or GOMAXPROCS, and then keeps them. A
// worker's soft memory limit, and that of a -workers 1 campaign's own
// process, is nine tenths of -worker-memory, or GOMEMLIMIT if the
// environment sets a lower one.
func TestCampaignProcessesTuneTheirRuntime(t *testing.T) {
	bin := fuzzruntest.Self(t, "TestFuzzrunRuntime")
	limit := int64(256<<20) - int64(256<<20)/10
	for _, c := range []struct {
		name, gogc, procs, memlimit, workers string
		want                                 string
	}{
		{"default, in-process", "", "", "", "1", fmt.Sprintf("GOGC=400 GOMAXPROCS=1 memory limit=%d", limit)},
		{"default, workers", "", "", "", "2", fmt.Sprintf("GOGC=400 GOMAXPROCS=1 memory limit=%d", limit)},
		{"GOGC set, in-process", "150", "2", "", "1", fmt.Sprintf("GOGC=150 GOMAXPROCS=2 memory limit=%d", limit)},
		{"GOGC set, workers", "150", "2", "", "2", fmt.Sprintf("GOGC=150 GOMAXPROCS=2 memory limit=%d", limit)},
		{"a lower GOMEMLIMIT, workers", "", "", "100MiB", "2", fmt.Sprintf("GOGC=400 GOMAXPROCS=1 memory limit=%d", 100<<20)},
		{"a higher GOMEMLIMIT, workers", "", "", "1GiB", "2", fmt.Sprintf("GOGC=400 GOMAXPROCS=1 memory limit=%d", limit)},
		{"a lower GOMEMLIMIT, in-process", "", "", "100MiB", "1", fmt.Sprintf("GOGC=400 GOMAXPROCS=1 memory limit=%d", 100<<20)},
		{"GOGC=off, in-process", "off", "", "", "1", fmt.Sprintf("GOGC=-1 GOMAXPROCS=1 memory limit=%d", limit)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOGC", c.gogc)
			t.Setenv("GOMAXPROCS", c.procs)
			t.Setenv("GOMEMLIMIT", c.memlimit)
			res := fuzzruntest.Run(t, bin, "-runs", "2", "-workers", c.workers, "-worker-memory", "256")
			require.Equal(t, fuzzrun.ExitOK, res.Code, res)
			assert.Contains(t, res.Stderr, "runtime of the run: "+c.want+"\n", res)
		})
	}
}
