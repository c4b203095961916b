package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExploreSharedFaultTreesAgree: exploring the faults of a class in one
// tree, each fault chosen when it strikes, finds what exploring each fault
// in trees of its own finds, at the same minimal depth with the same
// verdict, and reports nothing where that reports nothing, with fewer
// steps when states are cached; with state caching and without.
func TestExploreSharedFaultTreesAgree(t *testing.T) {
	skipUnderRace(t)
	all := faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart,
		faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}
	for _, row := range []struct {
		sc    properties.Scenario
		mix   faults.Mix
		depth int
	}{
		{scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindRestart}, 3},
		{scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDuplicate, faults.KindDelay, faults.KindStale}, 3},
		{scenarios.ReplicaSetNoResync(), faults.Mix{faults.KindDrop, faults.KindDelay}, 5},
		{scenarios.ReplicaSetExpectations(), faults.Mix{faults.KindAPIError, faults.KindStale, faults.KindDrop}, 3},
		{scenarios.ReplicaSetExpectations(), faults.Mix{faults.KindTimeTravel, faults.KindDelay}, 4},
		{scenarios.ReplicaSetLevel(), all, 2},
	} {
		for _, stateless := range []bool{false, true} {
			if stateless && row.depth > 3 {
				continue // slow without caching; the shallow rows check it
			}
			name := row.sc.Name + " " + row.mix.String()
			ref, err := properties.Explore(row.sc, row.mix, properties.FaultPerTree(properties.ExploreOptions{Depth: row.depth, Stateless: stateless}))
			require.NoError(t, err, name)
			got, err := properties.Explore(row.sc, row.mix, properties.ExploreOptions{Depth: row.depth, Stateless: stateless})
			require.NoError(t, err, name)
			assert.Equal(t, ref.Depth, got.Depth, "%s stateless %v", name, stateless)
			require.Equal(t, ref.Counterexample == nil, got.Counterexample == nil, "%s stateless %v", name, stateless)
			if ref.Counterexample != nil {
				assert.Equal(t, ref.Counterexample.Failure.Verdict, got.Counterexample.Failure.Verdict, "%s stateless %v", name, stateless)
			} else if stateless {
				// Without caching every path re-executes its prefix, and
				// every one strikes (at the latest in its completion):
				// the work is the same.
				assert.LessOrEqual(t, got.Steps, ref.Steps, name)
			} else {
				assert.Less(t, got.Steps, ref.Steps, name)
			}
			t.Logf("%s stateless %v: depth %d, %d steps, %d executions (per fault: %d steps, %d executions)", name, stateless, got.Depth, got.Steps, got.Executions, ref.Steps, ref.Executions)
		}
	}
}

// With two faults, a shared tree explores a superset of the schedules of
// trees per fault (two faults at one time strike in either order, and a
// fault may strike twice): it finds what they find, at a depth no
// greater (equal in these rows), and its counterexample, whichever fault
// of a class it chose, replays as an ordinary schedule. Sharing is not
// always cheaper when a bug is found: on noresync the trees per fault
// meet a failing schedule after 233 executions, the shared tree after
// 435.
func TestExploreSharedFaultTreesCoverTwoFaults(t *testing.T) {
	skipUnderRace(t)
	for _, row := range []struct {
		sc    properties.Scenario
		mix   faults.Mix
		depth int
	}{
		{scenarios.ReplicaSetLevel(), faults.Mix{faults.KindDrop, faults.KindRestart}, 2},
		{scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDelay, faults.KindDrop}, 2},
		{scenarios.ReplicaSetNoResync(), faults.Mix{faults.KindDelay, faults.KindDrop}, 4},
	} {
		name := row.sc.Name + " " + row.mix.String()
		ref, err := properties.Explore(row.sc, row.mix, properties.FaultPerTree(properties.ExploreOptions{Depth: row.depth, Faults: 2}))
		require.NoError(t, err, name)
		got, err := properties.Explore(row.sc, row.mix, properties.ExploreOptions{Depth: row.depth, Faults: 2})
		require.NoError(t, err, name)
		if ref.Counterexample != nil {
			require.NotNil(t, got.Counterexample, name)
			assert.LessOrEqual(t, got.Depth, ref.Depth, name)
		}
		if cx := got.Counterexample; cx != nil {
			// Explore replayed it through the ordinary runner already;
			// replaying it again judges it the same.
			out, diverged, err := properties.Replay(row.sc, cx.Schedule, cx.Choices, properties.RunOptions{})
			require.NoError(t, err, name)
			assert.False(t, diverged, name)
			require.NotNil(t, out.Failure, name)
			assert.Equal(t, cx.Failure.Verdict, out.Failure.Verdict, name)
		} else {
			assert.Nil(t, ref.Counterexample, name)
			assert.Less(t, got.Executions, ref.Executions, name)
		}
		t.Logf("%s: depth %d, %d executions (per fault: depth %d, %d executions)", name, got.Depth, got.Executions, ref.Depth, ref.Executions)
	}
}
