package properties_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// TestExploreFaultsDecidedAtTheirWriteAgree: arming a class's API errors,
// and its restarts between writes, on one controller as one fault that
// becomes one of them at the controller's next write, and its delays of
// one informer as one that becomes one of them at the next event held
// back, finds what choosing each when it strikes finds, at the same minimal depth with the same
// verdict, its counterexample an ordinary schedule that replays; where
// that finds nothing it finds nothing, with fewer executions when states
// are cached. With state caching and without.
func TestExploreFaultsDecidedAtTheirWriteAgree(t *testing.T) {
	skipUnderRace(t)
	for _, row := range []struct {
		sc    properties.Scenario
		mix   faults.Mix
		depth int
	}{
		{scenarios.DatabaseBroken(), faults.Mix{faults.KindRestart}, 4},
		{scenarios.ReplicaSetEdge(), faults.Mix{faults.KindRestart, faults.KindAPIError}, 3},
		{scenarios.ReplicaSetExpectations(), faults.Mix{faults.KindAPIError, faults.KindRestart}, 3},
		{scenarios.ReplicaSetLevel(), faults.Mix{faults.KindAPIError, faults.KindRestart}, 3},
		{scenarios.ReplicaSetNoResync(), faults.Mix{faults.KindDrop, faults.KindAPIError, faults.KindRestart}, 4},
		{scenarios.ReplicaSetNoResync(), faults.Mix{faults.KindDrop, faults.KindDelay}, 5},
		{scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDelay, faults.KindDuplicate}, 3},
		{scenarios.ReplicaSetExpectations(), faults.Mix{faults.KindTimeTravel, faults.KindDelay}, 4},
		{scenarios.ReplicaSetLevel(), faults.Mix{faults.KindDelay, faults.KindStale}, 3},
	} {
		for _, stateless := range []bool{false, true} {
			if stateless && row.depth > 3 {
				continue // slow without caching; the shallow rows check it
			}
			name := row.sc.Name + " " + row.mix.String()
			opts := properties.ExploreOptions{Depth: row.depth, Stateless: stateless}
			ref, err := properties.Explore(row.sc, row.mix, properties.Eager(opts))
			require.NoError(t, err, name)
			got, err := properties.Explore(row.sc, row.mix, opts)
			require.NoError(t, err, name)
			assert.Equal(t, ref.Depth, got.Depth, "%s stateless %v", name, stateless)
			require.Equal(t, ref.Counterexample == nil, got.Counterexample == nil, "%s stateless %v", name, stateless)
			if cx := got.Counterexample; cx != nil {
				assert.Equal(t, ref.Counterexample.Failure.Verdict, cx.Failure.Verdict, "%s stateless %v", name, stateless)
				require.Len(t, cx.Schedule, 1, name)
				assert.NotContains(t, cx.Schedule[0].Fault.String(), "one of", "%s: an ordinary fault", name)
				out, diverged, err := properties.Replay(row.sc, cx.Schedule, cx.Choices, properties.RunOptions{})
				require.NoError(t, err, name)
				assert.False(t, diverged, name)
				require.NotNil(t, out.Failure, name)
				assert.Equal(t, cx.Failure.Verdict, out.Failure.Verdict, name)
			} else if stateless {
				assert.LessOrEqual(t, got.Executions, ref.Executions, name)
			} else {
				assert.Less(t, got.Executions, ref.Executions, name)
			}
			t.Logf("%s stateless %v: depth %d, %d executions, %d steps (eager: depth %d, %d executions, %d steps)", name, stateless,
				got.Depth, got.Executions, got.Steps, ref.Depth, ref.Executions, ref.Steps)
		}
	}
}
