package classes_test

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	crtclasses "github.com/converge-sim/converge/controllerruntime/examples/classes"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
)

// The measure behind BENCHMARKS.md's diagnosis of replacing-sync. It runs
// only when asked:
//
//	go test ./examples/classes -run TestDiagnoseReplacingSync -v -converge.diagnose 2000 [-converge.mix restart]
var (
	diagnose    = flag.Int("converge.diagnose", 0, "runs of the diagnostic measure")
	diagnoseMix = flag.String("converge.mix", "", "the mix instead of the class's whole mix")
)

// TestDiagnoseReplacingSync runs replacing-sync outside rapid (schedules
// from the mix's generator, choices from classes.HalfSettle) and classifies each
// run by whether its schedule holds a crash of gitops in the middle of a
// reconcile (a restart after one or two writes), how many other faults
// it has, and its verdict.
func TestDiagnoseReplacingSync(t *testing.T) {
	if *diagnose == 0 {
		t.Skip("a measure: run with -converge.diagnose N")
	}
	all, err := crtclasses.All()
	require.NoError(t, err)
	i := slices.IndexFunc(all, func(c classes.Class) bool { return c.Name == "replacing-sync" })
	require.GreaterOrEqual(t, i, 0)
	c := all[i]
	mix := c.Faults
	if *diagnoseMix != "" {
		mix, err = faults.ParseMix(*diagnoseMix)
		require.NoError(t, err)
	}
	p, err := properties.Prepare(c.Scenario, mix)
	require.NoError(t, err)
	gen := faults.Schedules(mix, p.Plan().Topology, p.Plan().Budget)
	counts := map[string]int{}
	for run := range *diagnose {
		sched := gen.Example(run)
		out, err := properties.Execute(c.Scenario, sched, classes.HalfSettle(uint64(run)), properties.RunOptions{})
		require.NoError(t, err)
		verdict := "converged"
		if out.Failure != nil {
			verdict = string(out.Failure.Verdict)
		}
		crash, other := false, 0
		for _, f := range sched {
			if r, ok := f.Fault.(faults.Restart); ok && r.Controller == "gitops" && r.AfterWrites > 0 {
				crash = true
			} else {
				other++
			}
		}
		counts[fmt.Sprintf("gitops crash mid-reconcile=%v, other faults %d: %s", crash, other, verdict)]++
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(&b, "%5d %s\n", counts[k], k)
	}
	t.Log("\n" + b.String())
}
