package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// BenchmarkExplore explores replicaset-level to a fixed depth under every
// fault kind it must converge under, and reports the executions and states
// of one exploration (with the steps of canonical completions and the
// runs pruned), and the time per execution, so that a change to the
// explorer can be weighed by exact counts beside the time.
func BenchmarkExplore(b *testing.B) { benchmarkExplore(b, 1) }

// BenchmarkExploreWorkers is BenchmarkExplore with the fault trees of each
// depth explored by two goroutines side by side (ExploreOptions.Workers):
// run with GOMAXPROCS=2 or more, its time against BenchmarkExplore's is
// what a second core gives.
func BenchmarkExploreWorkers(b *testing.B) { benchmarkExplore(b, 2) }

func benchmarkExplore(b *testing.B, workers int) {
	sc := scenarios.ReplicaSetLevel()
	mix := faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart,
		faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}
	var res properties.ExploreResult
	for b.Loop() {
		var err error
		if res, err = properties.Explore(sc, mix, properties.ExploreOptions{Depth: 3, Workers: workers}); err != nil {
			b.Fatal(err)
		}
		if res.Counterexample != nil {
			b.Fatal(res.Guarantee())
		}
	}
	b.ReportMetric(float64(res.Executions), "executions")
	b.ReportMetric(float64(res.States), "states")
	b.ReportMetric(float64(res.Steps), "steps")
	b.ReportMetric(float64(res.CompletionSteps), "completion-steps")
	b.ReportMetric(float64(res.Pruned), "pruned")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*res.Executions), "ns/execution")
}
