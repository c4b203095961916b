package cronjob_test

import (
	"crypto/sha256"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/cronjob"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
)

// TestMeasureALoopingShrink searches the PeriodicJob with its clock left
// running (Options.KeepClock: a Job every period after the faults, for
// ever) under delays, and logs the clusters its search and shrink built,
// the steps they made, and hashes of the counterexample's report and
// trace (BENCHMARKS.md, "A loop that repeats stops").
//
//	go test -c -o cron.test ./examples/cronjob
//	cd examples/cronjob && /usr/bin/time ../../cron.test -test.run TestMeasureALoopingShrink -test.v -converge.measure
func TestMeasureALoopingShrink(t *testing.T) {
	if !*measure {
		t.Skip("a measurement: run with -converge.measure")
	}
	sc := cronjob.Scenario("periodicjob-clock", converter(t), cronjob.Options{KeepClock: true})
	build := sc.Build
	var built []*model.Cluster
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c, err := build(cfg)
		built = append(built, c)
		return c, err
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindDelay}, properties.SearchOptions{Checks: 5, Seed: 1, Wrap: properties.InBubble(t), Test: t})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	steps := 0
	for _, c := range built {
		steps += c.Steps()
	}
	cx := res.Counterexample
	t.Logf("MEASURE %s, %d faults, %d steps, choices %v: %d clusters built, %d steps in all; report %x, trace %s", cx.Failure.Verdict, len(cx.Schedule), cx.Steps, cx.Choices, len(built), steps, sha256.Sum256([]byte(cx.Report())), cx.Trace.Hash())
}
