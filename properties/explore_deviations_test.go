package properties_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offCanonical counts the choices of a run that are not the canonical 0.
func offCanonical(choices []int) int {
	n := 0
	for _, v := range choices {
		if v != 0 {
			n++
		}
	}
	return n
}

// TestExploreDeviationBound: replicaset-noresync's lost rescale under drop
// needs three choices off the canonical schedule within four decisions,
// or two within six. A bound of one deviation proves there is none
// through depth 8, and says so; a bound of two finds it at depth 6, a
// bound of three at depth 4, its minimal depth without a bound. Each
// counterexample keeps within its bound and replays.
func TestExploreDeviationBound(t *testing.T) {
	skipUnderRace(t)
	sc := catalogScenario(t, "replicaset-noresync")
	none, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 8, Deviations: 1})
	require.NoError(t, err)
	assert.Nil(t, none.Counterexample)
	assert.Equal(t, 8, none.Depth)
	assert.Contains(t, none.Guarantee(), "replicaset-noresync: no counterexample with ≤1 fault (drop) and ≤8 decisions, ≤1 of them off the canonical schedule (")
	assert.NotContains(t, none.Guarantee(), "sleep sets")

	for _, tc := range []struct{ deviations, depth int }{{2, 6}, {3, 4}} {
		res, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 8, Deviations: tc.deviations})
		require.NoError(t, err)
		cx := res.Counterexample
		require.NotNil(t, cx, "deviations %d", tc.deviations)
		assert.Equal(t, tc.depth, res.Depth, "deviations %d", tc.deviations)
		assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict)
		assert.LessOrEqual(t, offCanonical(cx.Choices), tc.deviations)
		assert.Contains(t, cx.Report(), fmt.Sprintf("exhaustive depth %d, ≤%d deviations: ", tc.depth, tc.deviations))
		assert.Equal(t, fmt.Sprintf("go run ./cmd/fuzzrun -strategy exhaustive -scenario replicaset-noresync -faults drop -depth %d -max-faults 1 -deviations %d -duration 0", tc.depth, tc.deviations), cx.Replay)

		// The line explores to the counterexample's depth only, and finds
		// the same one.
		again, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: tc.depth, Deviations: tc.deviations})
		require.NoError(t, err)
		require.NotNil(t, again.Counterexample, "deviations %d", tc.deviations)
		assert.Equal(t, cx.Trace.Hash(), again.Counterexample.Trace.Hash())
		assert.Equal(t, res.Executions, again.Executions)

		out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{})
		require.NoError(t, err)
		assert.False(t, diverged)
		require.NotNil(t, out.Failure)
		assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
	}
}

// TestExploreDeviationBoundCachingAgrees: under a deviation bound, state
// caching (which prunes a state only when it was explored with as many
// decisions and as many deviations left) gives the verdict and minimal
// depth plain re-execution gives, in fewer executions; and where there is
// nothing to find, the bound explores fewer paths than no bound.
func TestExploreDeviationBoundCachingAgrees(t *testing.T) {
	skipUnderRace(t)
	for _, row := range []struct {
		scenario          string
		mix               faults.Mix
		depth, deviations int
	}{
		{"replicaset-noresync", dropOnly, 6, 2},
		{"replicaset-edge", faults.Mix{faults.KindExpire}, 5, 3},
		{"replicaset-level", dropOnly, 5, 2},
		{"replicaset-expectations", faults.Mix{faults.KindAPIError}, 5, 2},
	} {
		sc := catalogScenario(t, row.scenario)
		name := fmt.Sprintf("%s %s depth %d, ≤%d deviations", row.scenario, row.mix, row.depth, row.deviations)
		plain, err := properties.Explore(sc, row.mix, properties.ExploreOptions{Depth: row.depth, Deviations: row.deviations, Stateless: true})
		require.NoError(t, err, name)
		cached, err := properties.Explore(sc, row.mix, properties.ExploreOptions{Depth: row.depth, Deviations: row.deviations})
		require.NoError(t, err, name)
		assert.Equal(t, plain.Depth, cached.Depth, name)
		require.Equal(t, plain.Counterexample == nil, cached.Counterexample == nil, name)
		if plain.Counterexample != nil {
			assert.Equal(t, plain.Counterexample.Failure.Verdict, cached.Counterexample.Failure.Verdict, name)
		}
		assert.Less(t, cached.Executions, plain.Executions, name)

		t.Logf("%s: depth %d, %d executions (stateless %d)", name, cached.Depth, cached.Executions, plain.Executions)
		if cached.Counterexample == nil {
			unbounded, err := properties.Explore(sc, row.mix, properties.ExploreOptions{Depth: row.depth})
			require.NoError(t, err, name)
			assert.Less(t, cached.Executions, unbounded.Executions, name)
			t.Logf("%s: no deviation bound: %d executions", name, unbounded.Executions)
		}
	}
}

func TestExploreRejectsBadDeviations(t *testing.T) {
	sc := catalogScenario(t, "replicaset-level")
	for _, tc := range []struct {
		opts properties.ExploreOptions
		want string
	}{
		{properties.ExploreOptions{Depth: 4, Deviations: -1}, "explore deviations -1: must be in [0, 4], the depth (0: no bound)"},
		{properties.ExploreOptions{Depth: 4, Deviations: 5}, "explore deviations 5: must be in [0, 4]"},
	} {
		_, err := properties.Explore(sc, dropOnly, tc.opts)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	// A bound as large as the depth binds nothing, and the guarantee
	// names none.
	res, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 2, Deviations: 2})
	require.NoError(t, err)
	assert.Contains(t, res.Guarantee(), "and ≤2 decisions (")
}
