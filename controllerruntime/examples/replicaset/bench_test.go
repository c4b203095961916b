package replicaset_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// prng chooses uniformly with a seeded generator (no rapid).
type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }

// BenchmarkReconcilesPerSecond runs the unmodified controller-runtime
// ReplicaSet reconciler in whole runs of its scenario, with random fault
// schedules (drop, restart, edit) and interleavings, and reports how many
// reconciles per second of wall time the model gets through, everything
// included: informers, event handlers, conversion, harness.
func BenchmarkReconcilesPerSecond(b *testing.B) {
	conv, err := replicaset.Converter()
	if err != nil {
		b.Fatal(err)
	}
	sc := replicaset.Scenario("replicaset", conv, replicaset.Options{Scale: true})
	plan, err := properties.PlanFor(sc, everyFault)
	if err != nil {
		b.Fatal(err)
	}
	reconciles, steps := 0, 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		var sched faults.Schedule
		for range r.IntN(plan.Budget.MaxFaults + 1) {
			sched = append(sched, randomFault(r, plan))
		}
		out, err := properties.Execute(sc, sched, prng{r}, properties.RunOptions{})
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
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(reconciles), "ns/reconcile")
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

func randomFault(r *rand.Rand, plan properties.Plan) faults.Timed {
	at := model.Time(r.Int64N(int64(plan.Budget.Horizon) + 1))
	target := plan.Topology.Targets[r.IntN(len(plan.Topology.Targets))]
	switch r.IntN(3) {
	case 0:
		return faults.Timed{At: at, Fault: faults.Drop{Controller: target.Controller, Resource: target.Kinds[r.IntN(len(target.Kinds))]}}
	case 1:
		return faults.Timed{At: at, Fault: faults.Restart{Controller: target.Controller, Down: 1 + model.Time(r.Int64N(int64(plan.Budget.MaxDown)))}}
	}
	edit := plan.Topology.Edits[r.IntN(len(plan.Topology.Edits))]
	return faults.Timed{At: at, Fault: faults.Edit{Target: edit, Pick: r.IntN(8), Value: edit.Min + r.Int64N(edit.Max-edit.Min+1)}}
}
