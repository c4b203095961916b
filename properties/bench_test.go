package properties_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// BenchmarkSimulatorSteps runs the replicaset-level scenario with random
// fault schedules and interleavings (no rapid), and reports simulated steps
// per second on one core.
func BenchmarkSimulatorSteps(b *testing.B) {
	sc := scenarios.ReplicaSetLevel()
	mix := faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}
	plan, err := properties.PlanFor(sc, mix)
	if err != nil {
		b.Fatal(err)
	}
	steps := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := rand.New(rand.NewPCG(uint64(i), 1))
		out, err := properties.Execute(sc, randomSchedule(i, plan, mix), prng{r}, properties.RunOptions{DiscardTrace: true})
		if err != nil {
			b.Fatal(err)
		}
		steps += out.Cluster.Steps()
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
}
