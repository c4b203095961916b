package properties_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// TestExploreMeasure prints where an exploration's work goes: set
// EXPLORE_MEASURE to a scenario, EXPLORE_DEPTH to a depth and optionally
// EXPLORE_FAULTS to a mix (default: every healable kind). Without
// EXPLORE_MEASURE it is skipped.
func TestExploreMeasure(t *testing.T) {
	name := os.Getenv("EXPLORE_MEASURE")
	if name == "" {
		t.Skip("set EXPLORE_MEASURE to a scenario")
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
	began := time.Now()
	res, err := properties.ExploreWithStats(sc, mix, properties.ExploreOptions{Depth: depth}, os.Stdout)
	require.NoError(t, err)
	t.Logf("%s\n  %d steps, %d completion steps, %d pruned, %d faults, %d strike times, %v", res.Guarantee(), res.Steps, res.CompletionSteps, res.Pruned, res.FaultSpace, len(res.StrikeTimes), time.Since(began))
}
