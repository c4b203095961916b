package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPlanRunIsTheSearchsPlannedRun: SearchOptions.PlanRun k from a seed
// makes the run the search of many runs from that seed makes as its k-th
// planned run: the same failure, schedule and trace, in one run.
func TestAPlanRunIsTheSearchsPlannedRun(t *testing.T) {
	p := ignoresConflicts(t)
	cx := plannedFinding(t, p)
	require.LessOrEqual(t, cx.Planned, p.PlannedRuns())

	one, err := p.Search(properties.SearchOptions{Seed: 1, PlanRun: cx.Planned, ReplayCommand: func(uint64) string { return "rerun" }})
	require.NoError(t, err)
	require.NotNil(t, one.Counterexample)
	assert.Equal(t, 1, one.Runs)
	assert.Equal(t, cx.Planned, one.Counterexample.Planned)
	assert.Equal(t, cx.Schedule, one.Counterexample.Schedule)
	assert.Equal(t, cx.Trace.Hash(), one.Counterexample.Trace.Hash())
	assert.Empty(t, one.Counterexample.Replay, "a command re-runs a seed, not a planned run")
}

// TestABadPlanRunIsAnError: a run past the plan, a negative one, or one
// under another strategy is an error, not a panic.
func TestABadPlanRunIsAnError(t *testing.T) {
	p := ignoresConflicts(t)
	n := p.PlannedRuns()
	require.Positive(t, n)
	cmd := func(uint64) string { return "rerun" }
	for _, opts := range []properties.SearchOptions{
		{Seed: 1, PlanRun: n + 1, ReplayCommand: cmd},
		{Seed: 1, PlanRun: -1, ReplayCommand: cmd},
		{Seed: 1, PlanRun: 1, Strategy: properties.Strategy{Name: properties.StrategyPCT}, ReplayCommand: cmd},
		{PlanRun: 1, ReplayCommand: cmd},
	} {
		_, err := p.Search(opts)
		assert.Error(t, err, "%+v", opts)
	}
}
