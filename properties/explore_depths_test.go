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

// TestExploreDepths prints, depth by depth, the cumulative states,
// executions (and those pruned) and steps (and those of completions) of
// an exploration and the CPU time it has taken:
// set EXPLORE_DEPTHS to a scenario, EXPLORE_DEPTH to the deepest depth,
// EXPLORE_FAULTS to a mix. Without EXPLORE_DEPTHS it is skipped.
func TestExploreDepths(t *testing.T) {
	name := os.Getenv("EXPLORE_DEPTHS")
	if name == "" {
		t.Skip("set EXPLORE_DEPTHS to a scenario")
	}
	sc, ok := scenarios.ByName(name)
	require.True(t, ok, name)
	depth, err := strconv.Atoi(os.Getenv("EXPLORE_DEPTH"))
	require.NoError(t, err)
	mix, err := faults.ParseMix(os.Getenv("EXPLORE_FAULTS"))
	require.NoError(t, err)
	cpu := func() float64 {
		var ru syscall.Rusage
		require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	began := cpu()
	report := func(res properties.ExploreResult) {
		t.Logf("%s %s depth %d: %d states, %d executions (%d pruned), %d steps (%d in completions), %.1f s CPU cumulative",
			name, mix, res.Depth, res.States, res.Executions, res.Pruned, res.Steps, res.CompletionSteps, cpu()-began)
	}
	res, err := properties.Explore(sc, mix, properties.ExploreOptions{Depth: depth, Progress: report})
	require.NoError(t, err)
	if res.Counterexample != nil {
		report(res)
	}
	t.Log(res.Guarantee())
}
