package properties_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/cputime"
	"github.com/converge-sim/converge/model"
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
	cpu := cputime.Process()
	for i := 0; b.Loop(); i++ {
		r := rand.New(rand.NewPCG(uint64(i), 1))
		out, err := properties.Execute(sc, randomSchedule(i, plan, mix), prng{r}, properties.RunOptions{DiscardTrace: true})
		if err != nil {
			b.Fatal(err)
		}
		steps += out.Cluster.Steps()
	}
	cpu = cputime.Process() - cpu
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(steps), "cpu-ns/step")
	}
}

// BenchmarkScenarioSteps runs the deployment, statefulset and database
// scenarios as BenchmarkSimulatorSteps runs replicaset-level, under every
// healable fault, and reports steps per second for each, so that the cost
// of a StatefulSet run, and of one with an operator and volumes, can be
// read beside a Deployment's.
func BenchmarkScenarioSteps(b *testing.B) {
	for _, sc := range []properties.Scenario{scenarios.Deployment(), scenarios.StatefulSet(), scenarios.Database()} {
		b.Run(sc.Name, func(b *testing.B) {
			plan, err := properties.PlanFor(sc, scenarios.Healable)
			if err != nil {
				b.Fatal(err)
			}
			steps := 0
			for i := 0; b.Loop(); i++ {
				r := rand.New(rand.NewPCG(uint64(i), 1))
				out, err := properties.Execute(sc, randomSchedule(i, plan, scenarios.Healable), prng{r}, properties.RunOptions{DiscardTrace: true})
				if err != nil {
					b.Fatal(err)
				}
				steps += out.Cluster.Steps()
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/run")
		})
	}
}

// BenchmarkFindAndShrinkEdge searches the edge-triggered scenario under
// drop from 20 different seeds; each search stops at its first failure and
// shrinks it. It reports the median wall time and runs of a search, and
// the median of the clusters a search builds (its runs, shrinking
// included), which no load on the machine moves.
func BenchmarkFindAndShrinkEdge(b *testing.B) {
	sc := scenarios.ReplicaSetEdge()
	build, built := sc.Build, 0
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		built++
		return build(cfg)
	}
	mix := faults.Mix{faults.KindDrop}
	const seeds = 20
	var times []time.Duration
	var runs, builds []int
	for b.Loop() {
		times, runs, builds = times[:0], runs[:0], builds[:0]
		for seed := uint64(1); seed <= seeds; seed++ {
			built = 0
			start := time.Now()
			res, err := properties.Search(sc, mix, properties.SearchOptions{Test: b, Checks: 1000, Seed: seed})
			if err != nil {
				b.Fatal(err)
			}
			if res.Counterexample == nil {
				b.Fatalf("seed %d: no failure in 1000 runs", seed)
			}
			times = append(times, time.Since(start))
			runs = append(runs, res.Runs)
			builds = append(builds, built)
		}
	}
	slices.Sort(times)
	slices.Sort(runs)
	slices.Sort(builds)
	b.ReportMetric(float64(times[seeds/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(times[seeds-1].Microseconds())/1000, "ms-max")
	b.ReportMetric(float64(runs[seeds/2]), "runs-median")
	b.ReportMetric(float64(builds[seeds/2]), "builds-median")
}
