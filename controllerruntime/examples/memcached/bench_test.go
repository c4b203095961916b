package memcached_test

import (
	"flag"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// prng chooses uniformly with a seeded generator (no rapid).
type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }

var measure = flag.Bool("converge.measure", false, "measure reconciles per second (TestMeasureReconcilesPerSecond)")

// TestMeasureReconcilesPerSecond hosts the benchmark: every run needs its
// own synctest bubble, and only a *testing.T can make one.
//
//	go test ./examples/memcached -run TestMeasureReconcilesPerSecond -v -converge.measure
func TestMeasureReconcilesPerSecond(t *testing.T) {
	if !*measure {
		t.Skip("a measurement: run with -converge.measure")
	}
	res := testing.Benchmark(func(b *testing.B) { benchmarkReconciles(b, t) })
	t.Logf("%s\t%s", res, res.MemString())
	for _, unit := range []string{"reconciles/s", "steps/s"} {
		t.Logf("%.0f %s", res.Extra[unit], unit)
	}
}

// benchmarkReconciles runs the unmodified Memcached project
// (with the built-in Deployment, ReplicaSet and kubelet controllers) in whole runs of its
// scenario, each in its own synctest bubble, with random schedules of
// every fault and random interleavings, and reports the reconciles of
// every controller per second of wall time, everything included.
func benchmarkReconciles(b *testing.B, t *testing.T) {
	conv, err := memcached.Converter()
	if err != nil {
		b.Fatal(err)
	}
	sc := memcached.Scenario("memcached", conv, memcached.Options{SyncPeriod: 30 * time.Second})
	plan, err := properties.PlanFor(sc, everyFault)
	if err != nil {
		b.Fatal(err)
	}
	gen := faults.Schedules(everyFault, plan.Topology, plan.Budget)
	reconciles, steps := 0, 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		sched := gen.Example(int(r.Int32()))
		var out *properties.Outcome
		synctest.Test(t, func(*testing.T) {
			out, err = properties.Execute(sc, sched, prng{r}, properties.RunOptions{})
		})
		if err != nil {
			b.Fatal(err)
		}
		if out.Failure != nil {
			b.Fatalf("a run failed: %s", out.Failure.Report(sched))
		}
		for _, rec := range out.Cluster.Trace().Records {
			if rec.Kind == model.ActReconcile {
				reconciles++
			}
		}
		steps += out.Cluster.Steps()
	}
	b.ReportMetric(float64(reconciles)/b.Elapsed().Seconds(), "reconciles/s")
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
