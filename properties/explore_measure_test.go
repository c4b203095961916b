package properties_test

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// The tests of this file are measurements, not checks: each runs only when
// its environment variable names a scenario, and prints figures for
// docs/design.md ("Bounded exhaustive exploration").

// measuredExploration reads the scenario named by the environment variable
// env, the depth in EXPLORE_DEPTH, the mix in EXPLORE_FAULTS (default:
// every healable kind) and the deviation bound in EXPLORE_DEVIATIONS
// (default: none); it skips the test when env is unset.
func measuredExploration(t *testing.T, env string) (properties.Scenario, faults.Mix, properties.ExploreOptions) {
	t.Helper()
	name := os.Getenv(env)
	if name == "" {
		t.Skip("set " + env + " to a scenario")
	}
	sc, ok := scenarios.ByName(name)
	require.True(t, ok, name)
	depth, err := strconv.Atoi(os.Getenv("EXPLORE_DEPTH"))
	require.NoError(t, err)
	mix := scenarios.Healable
	if s := os.Getenv("EXPLORE_FAULTS"); s != "" {
		mix, err = faults.ParseMix(s)
		require.NoError(t, err)
	}
	opts := properties.ExploreOptions{Depth: depth}
	if s := os.Getenv("EXPLORE_DEVIATIONS"); s != "" {
		opts.Deviations, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	return sc, mix, opts
}

// TestExploreMeasure prints where an exploration's work goes: set
// EXPLORE_MEASURE to a scenario, EXPLORE_DEPTH to a depth and optionally
// EXPLORE_FAULTS to a mix and EXPLORE_DEVIATIONS to a deviation bound.
func TestExploreMeasure(t *testing.T) {
	sc, mix, opts := measuredExploration(t, "EXPLORE_MEASURE")
	began := time.Now()
	res, err := properties.ExploreWithStats(sc, mix, opts, os.Stdout)
	require.NoError(t, err)
	t.Logf("%s\n  %d steps, %d completion steps, %d pruned, %d faults, %d strike times, %v", res.Guarantee(), res.Steps, res.CompletionSteps, res.Pruned, res.FaultSpace, len(res.StrikeTimes), time.Since(began))
}

// TestExploreDepths prints, depth by depth, the cumulative states,
// executions (and those pruned) and steps (and those of completions) of
// an exploration and the CPU time it has taken: set EXPLORE_DEPTHS to a
// scenario, EXPLORE_DEPTH to the deepest depth and optionally
// EXPLORE_FAULTS to a mix and EXPLORE_DEVIATIONS to a deviation bound.
func TestExploreDepths(t *testing.T) {
	sc, mix, opts := measuredExploration(t, "EXPLORE_DEPTHS")
	cpu := func() float64 {
		var ru syscall.Rusage
		require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	began := cpu()
	report := func(res properties.ExploreResult) {
		t.Logf("%s %s depth %d: %d states, %d executions (%d pruned), %d steps (%d in completions), %.1f s CPU cumulative",
			sc.Name, mix, res.Depth, res.States, res.Executions, res.Pruned, res.Steps, res.CompletionSteps, cpu()-began)
	}
	opts.Progress = report
	res, err := properties.Explore(sc, mix, opts)
	require.NoError(t, err)
	if res.Counterexample != nil {
		report(res)
	}
	t.Log(res.Guarantee())
}
