package classes_test

import (
	"flag"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	crtclasses "github.com/converge-sim/converge/controllerruntime/examples/classes"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The probes behind BENCHMARKS.md's "The fewer-faults pass, bounded". They
// run only when asked:
//
//	go test ./examples/classes -run TestProbeCronjobShrink -v -converge.probe 7,8,11,19
//	go test ./examples/classes -run TestProbeCronjobOneFault -v -converge.probe 20
var probe = flag.String("converge.probe", "", "TestProbeCronjobShrink: the seeds to search; TestProbeCronjobOneFault: the random interleavings per schedule")

// cronjobClass returns the cronjob class of the table.
func cronjobClass(t *testing.T) classes.Class {
	all, err := crtclasses.All()
	require.NoError(t, err)
	i := slices.IndexFunc(all, func(c classes.Class) bool { return c.Name == "cronjob" })
	require.GreaterOrEqual(t, i, 0)
	return all[i]
}

// TestProbeCronjobShrink searches the cronjob class from each seed as the
// table does and logs what the shrink left: rapid's schedule, deletion's,
// and the runs they took.
func TestProbeCronjobShrink(t *testing.T) {
	if *probe == "" {
		t.Skip("a measure: run with -converge.probe SEEDS")
	}
	c := cronjobClass(t)
	p, err := properties.PrepareWith(c.Scenario, c.Faults, properties.PrepareOptions{Wrap: properties.InBubble(t)})
	require.NoError(t, err)
	for _, s := range strings.Split(*probe, ",") {
		seed, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		res, err := p.Search(properties.SearchOptions{Checks: classes.Budget, Seed: seed, Test: t, Wrap: properties.InBubble(t)})
		require.NoError(t, err)
		cx := res.Counterexample
		if cx == nil {
			t.Logf("seed %d: passed %d runs", seed, res.Runs)
			continue
		}
		t.Logf("seed %d: %s after %d runs; rapid's schedule %v; deletion and the pass: %d runs, the pass %d of %d; schedule %v; %d choices", seed, cx.Failure.Verdict, res.Runs, cx.Shrunk, cx.DeletionRuns, cx.FewerRuns, cx.FewerBudget, cx.Schedule, len(cx.Choices))
	}
}

// TestProbeCronjobOneFault runs the cronjob class under every schedule of
// one delay or one watch expiry of periodicjob, at every time from 0 to
// the budget's Horizon, each with every choice 0 and with N interleavings
// drawn as rapid's draws mostly are (classes.HalfSettle), and logs the
// schedules that break the invariant and how often.
func TestProbeCronjobOneFault(t *testing.T) {
	if *probe == "" {
		t.Skip("a measure: run with -converge.probe N")
	}
	n, err := strconv.Atoi(*probe)
	require.NoError(t, err)
	c := cronjobClass(t)
	p, err := properties.PrepareWith(c.Scenario, c.Faults, properties.PrepareOptions{Wrap: properties.InBubble(t)})
	require.NoError(t, err)
	b := p.Plan().Budget
	var scheds []faults.Schedule
	for at := model.Time(0); at <= b.Horizon; at++ {
		for _, res := range []string{"Job", "PeriodicJob"} {
			for d := model.Time(1); d <= b.MaxDown; d++ {
				scheds = append(scheds, faults.Schedule{{At: at, Fault: faults.Delay{Controller: "periodicjob", Resource: res, For: d}}})
			}
			scheds = append(scheds, faults.Schedule{{At: at, Fault: faults.Expire{Controller: "periodicjob", Resource: res}}})
		}
	}
	bubble := func(run func()) { properties.InBubble(t)(func(*rapid.T) { run() })(nil) }
	total, failing := 0, 0
	for _, sched := range scheds {
		fails := 0
		for i := range n + 1 {
			var ch model.Chooser = &properties.ReplayChooser{}
			if i > 0 {
				ch = classes.HalfSettle(uint64(i))
			}
			out, err := properties.Execute(c.Scenario, sched, ch, properties.RunOptions{Wrap: bubble})
			require.NoError(t, err)
			total++
			if out.Failure != nil && out.Failure.Verdict == c.Fails {
				fails++
			}
		}
		if fails > 0 {
			failing++
			t.Logf("%v: %d of %d interleavings fail", sched, fails, n+1)
		}
	}
	t.Logf("%d schedules, %d runs; %d schedules fail (budget %+v)", len(scheds), total, failing, b)
}
