package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestANewStrategyPlugsIn: a strategy defined in a test file alone (the
// blind strategy of strategy_blind_test.go), added to the
// table, is parsed, listed, run by Search, and finds a broken controller
// (swallows-errors under API errors) with the oracle's verdict, its
// faults deleted to the one it needs, its report and its replay line,
// and the finding replays from its schedule and choices.
func TestANewStrategyPlugsIn(t *testing.T) {
	name := properties.PlugBlind(t)
	s, err := properties.ParseStrategy(name, 0)
	require.NoError(t, err)
	assert.Equal(t, name, s.String())
	assert.Contains(t, properties.Strategies(), properties.StrategyDoc{Name: name, Help: "every run drawn afresh, no feedback (a test's)"})
	_, err = properties.ParseStrategy(name, 2)
	assert.EqualError(t, err, "strategy blind takes no depth (got 2)")

	sc := properties.Scenario{Name: "swallows-errors", Build: broken.QuietWorld(broken.SwallowsErrors()), Program: "fuzzrun"}
	mix := faults.Mix{faults.KindAPIError}
	res, err := properties.Search(sc, mix, properties.SearchOptions{Checks: 50, Seed: 7, Strategy: s})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "the blind search finds the swallowed error")
	assert.Equal(t, s, cx.Strategy)
	assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict)
	assert.Len(t, cx.Schedule, 1, "the faults the failure does not need are deleted")
	assert.Contains(t, cx.Report(), "replay: fuzzrun -scenario swallows-errors -faults apierror -strategy blind -seed 7\n")

	out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{})
	require.NoError(t, err)
	assert.False(t, diverged)
	assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash(), "the finding replays")
}

// TestSearchRunsEveryStrategy: Search runs each strategy of the table
// through its one interface, the exhaustive one included (before, only
// Explore ran it), and each finds the swallowed error with the oracle's
// verdict.
func TestSearchRunsEveryStrategy(t *testing.T) {
	sc := properties.Scenario{Name: "swallows-errors", Build: broken.QuietWorld(broken.SwallowsErrors()), Program: "fuzzrun"}
	mix := faults.Mix{faults.KindAPIError}
	for _, doc := range properties.Strategies() {
		s := properties.Strategy{Name: doc.Name}
		if doc.Name == properties.StrategyExhaustive {
			s.Depth = 3
		}
		res, err := properties.Search(sc, mix, properties.SearchOptions{Checks: 100, Seed: 7, Strategy: s})
		require.NoError(t, err, s.String())
		require.NotNil(t, res.Counterexample, s.String())
		assert.Equal(t, properties.GoalUnmet, res.Counterexample.Failure.Verdict, s.String())
		assert.Equal(t, doc.Name, res.Counterexample.Strategy.Name)
		assert.Positive(t, res.Runs, s.String())
	}
}
