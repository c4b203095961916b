package controllerruntime_test

import (
	"flag"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
)

var measureLoops = flag.Bool("converge.measureloops", false, "measure a looping search (TestMeasureALoopingSearch)")

// TestMeasureALoopingSearch searches the operator that compares a whole
// defaulted spec (a write at every reconcile, for ever) under restarts
// and logs the clusters its search and shrink built and the steps they
// made (BENCHMARKS.md, "A loop that repeats stops").
//
//	go test -c -o crt.test . && ./crt.test -test.run TestMeasureALoopingSearch -test.v -converge.measureloops
func TestMeasureALoopingSearch(t *testing.T) {
	if !*measureLoops {
		t.Skip("a measurement: run with -converge.measureloops")
	}
	sc := childOperator(false)
	build := sc.Build
	var built []*model.Cluster
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c, err := build(cfg)
		built = append(built, c)
		return c, err
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindRestart, faults.KindDelay}, properties.SearchOptions{Checks: 5, Seed: 1, Wrap: properties.InBubble(t), Test: t})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	steps := 0
	for _, c := range built {
		steps += c.Steps()
	}
	cx := res.Counterexample
	t.Logf("MEASURE %s, %d faults, %d steps, %d choices: %d clusters built, %d steps in all; trace %s", cx.Failure.Verdict, len(cx.Schedule), cx.Steps, len(cx.Choices), len(built), steps, cx.Trace.Hash())
}
