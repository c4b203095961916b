package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// BenchmarkRunsToFirstFailure compares the strategies by how many runs a
// search takes to find its first failure: each iteration searches from the
// next seed, up to 1000 runs, and shrinks what it finds. runs/search is
// the mean (a search that finds nothing counts 1000); found/search the
// share of searches that found a failure. Compare with a fixed number of
// searches, not a time:
//
//	go test ./properties -run '^$' -bench RunsToFirstFailure -benchtime 40x
func BenchmarkRunsToFirstFailure(b *testing.B) {
	const checks = 1000
	for _, bc := range []struct {
		name string
		sc   properties.Scenario
		mix  faults.Mix
	}{
		{"stale-singleton", staleSingleton(), nil},
		{"replicaset-edge/drop", scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}},
		{"replicaset-edge/restart", scenarios.ReplicaSetEdge(), faults.Mix{faults.KindRestart}},
		{"replicaset-noresync/drop", scenarios.ReplicaSetNoResync(), faults.Mix{faults.KindDrop}},
	} {
		for _, st := range []properties.Strategy{{Name: properties.StrategyRandom}, pct} {
			b.Run(bc.name+"/"+st.String(), func(b *testing.B) {
				runs, found, searches := 0, 0, 0
				for b.Loop() {
					searches++
					res, err := properties.Search(bc.sc, bc.mix, properties.SearchOptions{Test: b, Checks: checks, Seed: uint64(searches), Strategy: st})
					if err != nil {
						b.Fatal(err)
					}
					runs += res.Runs
					if res.Counterexample != nil {
						found++
					}
				}
				b.ReportMetric(float64(runs)/float64(searches), "runs/search")
				b.ReportMetric(float64(found)/float64(searches), "found/search")
			})
		}
	}
}
