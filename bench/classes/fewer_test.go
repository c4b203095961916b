package classes_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
)

// The measure behind BENCHMARKS.md's "The fewer-faults pass, bounded". It
// runs only when asked:
//
//	go test ./bench/classes -run TestProbeFewerPass -v -converge.fewer [-converge.only CLASS]
var fewerProbe = flag.Bool("converge.fewer", false, "TestProbeFewerPass: log the fewer-faults pass of every class's 20 seeds")

// TestProbeFewerPass searches every class from the table's seeds as the
// table does and logs, for each seed whose shrink ran the pass for fewer
// faults than deletion leaves, its runs, its budget and the faults left.
func TestProbeFewerPass(t *testing.T) {
	if !*fewerProbe {
		t.Skip("a measure: run with -converge.fewer")
	}
	for _, c := range classes.All() {
		if !strings.Contains(c.Name, *only) {
			continue
		}
		p, err := properties.Prepare(c.Scenario, c.Faults)
		require.NoError(t, err)
		passes, runs, cut := 0, 0, 0
		for _, seed := range classes.Seeds(1, classes.TableSeeds) {
			res, err := p.Search(properties.SearchOptions{Checks: classes.Budget, Seed: seed, Test: t})
			require.NoError(t, err)
			cx := res.Counterexample
			if cx == nil || cx.FewerBudget == 0 {
				continue
			}
			passes++
			runs += cx.FewerRuns
			if len(cx.Schedule) < 2 {
				cut++
			}
			t.Logf("%s seed %d: found at run %d (%s), deletion left 2+; deletion and the pass %d runs, the pass %d of %d; %d faults: %v", c.Name, seed, res.Runs, cx.Failure.Verdict, cx.DeletionRuns, cx.FewerRuns, cx.FewerBudget, len(cx.Schedule), cx.Schedule)
		}
		if passes > 0 {
			t.Logf("%s: the pass ran on %d seeds, cut %d, %d runs", c.Name, passes, cut, runs)
		}
	}
}
