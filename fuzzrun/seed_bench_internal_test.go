//go:build unix

package fuzzrun

import (
	"syscall"
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// BenchmarkSeedRandom and BenchmarkSeedPCT measure what a worker spends on
// one seed of a campaign row, as runJob runs it: a search with one check,
// under a mix the scenario converges under, so that no seed shrinks, in a
// scenario whose runs are short (replicaset-expectations under stale) and
// one whose runs are longer (replicaset-level under drop, restart and
// edit). Each iteration is one job of one seed, the next of seeds 1 to
// 100 each time (some later PCT seed of replicaset-level runs for
// minutes). Besides wall time it reports cpu-ns/op, the CPU time this
// process spent per seed (garbage collection included), which other
// processes on a shared machine disturb less. Compare before and after
// with
//
//	go test ./fuzzrun -run '^$' -bench 'Seed(Random|PCT)$' -count 6
func BenchmarkSeedRandom(b *testing.B) { benchmarkSeed(b, properties.Strategy{}) }

// BenchmarkSeedPCT is BenchmarkSeedRandom under the PCT strategy.
func BenchmarkSeedPCT(b *testing.B) {
	benchmarkSeed(b, properties.Strategy{Name: properties.StrategyPCT})
}

func benchmarkSeed(b *testing.B, s properties.Strategy) {
	for _, bc := range []struct {
		sc  properties.Scenario
		mix faults.Mix
	}{
		{scenarios.ReplicaSetExpectations(), faults.Mix{faults.KindStale}},
		{scenarios.ReplicaSetLevel(), faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}},
	} {
		b.Run(bc.sc.Name, func(b *testing.B) {
			ps := newPlans([]properties.Scenario{bc.sc}, nil)
			b.ReportAllocs()
			start := cpuTime()
			seed, n := uint64(0), 0
			for b.Loop() {
				n++
				seed = seed%100 + 1
				j := &job{ID: int(seed), Scenario: bc.sc.Name, Faults: bc.mix.String(), Seeds: []uint64{seed}, Budget: time.Hour, Strategy: s.Name, Depth: s.Depth}
				runJob(j, ps, func(r result) {
					if r.Error != "" || r.Finding != nil {
						b.Fatalf("seed %d: %+v", seed, r)
					}
				})
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
		})
	}
}

// cpuTime is the user and system CPU time of this process, in
// nanoseconds.
func cpuTime() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return u.Utime.Nano() + u.Stime.Nano()
}
