package classes_test

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/examples/cache"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The measures behind BENCHMARKS.md's "Why the weak classes were missed"
// and "Draw changes measured, not kept". They run only when asked:
//
//	go test ./bench/classes -run TestDiagnoseSwallowedFailures -v -converge.diagnose 3000 [-converge.mix apierror]
//	go test ./bench/classes -run TestDiagnoseTransitions -v -converge.diagnose 2000
//	go test ./bench/classes -run TestDiagnoseBudgets -v -converge.diagnose 1 -converge.maxfaults 9 [-converge.swarm]
var (
	diagnose       = flag.Int("converge.diagnose", 0, "runs (or, for TestDiagnoseBudgets, any positive number) of the diagnostic measures")
	diagnoseMix    = flag.String("converge.mix", "", "TestDiagnoseSwallowedFailures: the mix instead of the class's whole mix")
	diagnoseFaults = flag.Int("converge.maxfaults", 0, "TestDiagnoseBudgets: Budget.MaxFaults of the classes (0: the default)")
	diagnoseSwarm  = flag.Bool("converge.swarm", false, "TestDiagnoseBudgets: draw swarm schedules (Budget.Swarm)")
)

func choices(run int) model.Chooser { return classes.HalfSettle(uint64(run)) }

// TestDiagnoseSwallowedFailures runs ignores-conflicts outside rapid
// (schedules from the mix's generator, choices from classes.HalfSettle) and
// classifies each run by its verdict and by what brought the controller
// back after a reconcile that swallowed a failed write: an event or its
// own write, or a resync alone, inside the fault phase or after the heal.
func TestDiagnoseSwallowedFailures(t *testing.T) {
	if *diagnose == 0 {
		t.Skip("a measure: run with -converge.diagnose N")
	}
	c := classNamed(t, "ignores-conflicts")
	mix := c.Faults
	if *diagnoseMix != "" {
		m, err := faults.ParseMix(*diagnoseMix)
		require.NoError(t, err)
		mix = m
	}
	p, err := properties.Prepare(c.Scenario, mix)
	require.NoError(t, err)
	gen := faults.Schedules(mix, p.Plan().Topology, p.Plan().Budget)
	counts := map[string]int{}
	for run := range *diagnose {
		sched := gen.Example(run)
		out, err := properties.Execute(c.Scenario, sched, choices(run), properties.RunOptions{})
		require.NoError(t, err)
		key := "converged"
		if out.Failure != nil {
			key = string(out.Failure.Verdict)
		}
		key += " / " + broughtBack(out)
		if sched.Class() != faults.Faithful {
			key += " (adversarial schedule)"
		}
		counts[key]++
	}
	logCounts(t, counts)
}

// broughtBack reads a run's trace: after the first reconcile that had a
// call fail and returned nil with nothing requeued, what made its
// controller reconcile the key again and write.
func broughtBack(out *properties.Outcome) string {
	recs := out.Cluster.Trace().Records
	kind := "no swallowed failure"
	for i, r := range recs {
		if r.Kind != model.ActReconcile || !swallowed(&r) {
			continue
		}
		kind = "swallowed, brought back by an event or its own write"
		onlyResync := true
		for _, next := range recs[i+1:] {
			if next.Actor != r.Actor {
				continue
			}
			if next.Kind == model.ActReconcile && next.Target.Key() == r.Target.Key() {
				if onlyResync && len(next.Writes) > 0 {
					if out.QuietFrom == 0 || next.Step < out.QuietFrom {
						return "swallowed, retried by a resync in the fault phase"
					}
					return "swallowed, retried by a resync after the heal"
				}
				break
			}
			resync := next.Kind == model.ActDeliver && next.Replay || next.Kind == model.ActTimer && next.Timer == model.TimerResync
			onlyResync = onlyResync && resync
		}
	}
	return kind
}

// swallowed reports whether a reconcile had a call fail and returned
// nil with nothing requeued.
func swallowed(r *model.Record) bool {
	failed := false
	for _, n := range r.Notes {
		switch n.Kind {
		case model.NoteFailed:
			failed = true
		case model.NoteError, model.NoteRequeue, model.NoteRequeueAfter, model.NotePanic:
			return false
		}
	}
	return failed
}

// TestDiagnoseTransitions runs cache-stale-tier outside rapid with
// transitions from its inputs' generator and classifies each run by
// whether its transitions put a tier and then removed it (with members
// left), how many of them the run applied, and its verdict.
func TestDiagnoseTransitions(t *testing.T) {
	if *diagnose == 0 {
		t.Skip("a measure: run with -converge.diagnose N")
	}
	sc := scenarios.CacheKeepsRemovedTier()
	gen := rapid.SliceOfN(cache.Spec(), 0, sc.Inputs.MaxTransitions())
	counts := map[string]int{}
	for run := range *diagnose {
		ts := properties.Transitions(gen.Example(run))
		out, err := properties.Execute(sc, nil, choices(run), properties.RunOptions{Inputs: ts})
		require.NoError(t, err)
		verdict := "converged"
		if out.Failure != nil {
			verdict = string(out.Failure.Verdict)
		}
		n := len(ts)
		removed := n >= 2 && ts[n-1].Value("tier") == nil && ts[n-1].Int("replicas") > 0 &&
			slices.ContainsFunc(ts[:n-1], func(f model.Fields) bool { return f.Value("tier") != nil })
		counts[fmt.Sprintf("tier put then removed=%v, applied %d of %d: %s", removed, len(out.Transitions), n, verdict)]++
	}
	logCounts(t, counts)
}

// TestDiagnoseBudgets measures the classes nearest their floors under
// the whole mix with a budget changed (more faults per schedule, swarm
// draws): found within 100 runs, median, and the shrunk schedules.
func TestDiagnoseBudgets(t *testing.T) {
	if *diagnose == 0 {
		t.Skip("a measure: run with -converge.diagnose 1")
	}
	for _, name := range []string{"swallows-errors", "max-retries", "ignores-conflicts", "unmapped-pods", "short-expectations"} {
		c := classNamed(t, name)
		c.Scenario.Budget.MaxFaults = *diagnoseFaults
		c.Scenario.Budget.Swarm = *diagnoseSwarm
		r, err := classes.Measure(t, c, classes.Seeds(1, classes.TableSeeds))
		require.NoError(t, err)
		med, _ := r.Percentile(50)
		t.Logf("%s: found %d/%d, median %d, runs %v, shrunk %v", name, r.Found(), r.Seeds, med, r.Runs, r.Shrunk)
	}
}

func logCounts(t *testing.T, counts map[string]int) {
	t.Helper()
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(&b, "%5d %s\n", counts[k], k)
	}
	t.Log("\n" + b.String())
}
