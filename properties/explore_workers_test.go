package properties_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// TestExploreWorkersAgree: fault trees explored side by side show what
// they show one after another, at the same minimal depth and with the
// same counterexample, choice for choice; each tree prunes only against
// the depths before and itself, so at least as many executions run, and
// the same number whatever the number of workers. Without a cache, where
// nothing prunes, the counts are the same as one after another. Under
// -race the rows stop at depth 4, without replicaset-level's.
func TestExploreWorkersAgree(t *testing.T) {
	for _, row := range []struct {
		scenario   string
		mix        faults.Mix
		depth      int
		deviations int
	}{
		{"replicaset-level", scenarios.Healable, 3, 0},
		{"replicaset-noresync", dropOnly, 6, 0},
		{"replicaset-noresync", dropOnly, 6, 2},
		{"replicaset-edge", faults.Mix{faults.KindDuplicate}, 3, 0},
		{"replicaset-expectations", faults.Mix{faults.KindAPIError, faults.KindTimeTravel}, 3, 0},
	} {
		if raceEnabled {
			// The same trees side by side, shallower: depth 6 of noresync,
			// and the healable mix of replicaset-level with its 6,000
			// executions a tree order, each took minutes under -race on a
			// loaded runner. The other rows run workers side by side.
			if row.scenario == "replicaset-level" {
				continue
			}
			row.depth = min(row.depth, 4)
		}
		sc := catalogScenario(t, row.scenario)
		name := fmt.Sprintf("%s %s K=%d", row.scenario, row.mix, row.deviations)
		one, err := properties.Explore(sc, row.mix, properties.ExploreOptions{Depth: row.depth, Deviations: row.deviations})
		require.NoError(t, err)
		var two properties.ExploreResult
		for _, workers := range []int{2, 3} {
			res, err := properties.Explore(sc, row.mix, properties.ExploreOptions{Depth: row.depth, Deviations: row.deviations, Workers: workers})
			require.NoError(t, err)
			assert.Equal(t, workers, res.Workers, name)
			assert.Contains(t, res.Guarantee(), fmt.Sprintf(", %d workers", workers), name)
			assert.Equal(t, one.Depth, res.Depth, name)
			require.Equal(t, one.Counterexample == nil, res.Counterexample == nil, name)
			if cx := res.Counterexample; cx != nil {
				assert.Equal(t, one.Counterexample.Choices, cx.Choices, name)
				assert.Equal(t, one.Counterexample.Schedule, cx.Schedule, name)
				assert.Equal(t, one.Counterexample.Trace.Hash(), cx.Trace.Hash(), name)
			}
			assert.GreaterOrEqual(t, res.Executions, one.Executions, name)
			if row.scenario == "replicaset-level" {
				// Its trees share a few states within a depth, which they
				// no longer prune against: the trees were explored apart.
				assert.Greater(t, res.Executions, one.Executions, name)
			}
			if workers == 2 {
				two = res
				continue
			}
			assert.Equal(t, two.Executions, res.Executions, name)
			assert.Equal(t, two.States, res.States, name)
			t.Logf("%s: %d executions, %d states with workers; %d, %d one tree after another", name, res.Executions, res.States, one.Executions, one.States)
		}
	}

	sc := catalogScenario(t, "replicaset-level")
	one, err := properties.Explore(sc, scenarios.Healable, properties.ExploreOptions{Depth: 2, Stateless: true})
	require.NoError(t, err)
	two, err := properties.Explore(sc, scenarios.Healable, properties.ExploreOptions{Depth: 2, Stateless: true, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, one.Executions, two.Executions)
	assert.Equal(t, one.Steps, two.Steps)
}
