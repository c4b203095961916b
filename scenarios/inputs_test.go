package scenarios_test

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// searchInputs searches sc under no faults from seed 1 and returns the
// result with the prepared scenario's memo counts.
func searchInputs(t *testing.T, sc properties.Scenario, checks int) (*properties.SearchResult, properties.MemoStats) {
	t.Helper()
	p, err := properties.Prepare(sc, nil)
	require.NoError(t, err)
	res, err := p.Search(properties.SearchOptions{Test: t, Checks: checks, Seed: 1})
	require.NoError(t, err)
	return res, p.ReferenceRuns()
}

// The Cache operators declare no goal: the differential oracle alone finds
// their input bugs, and rapid shrinks the inputs to at most two
// transitions.
func TestCacheInputBugsAreFoundWithoutAGoalInTwoTransitions(t *testing.T) {
	for _, tc := range []struct {
		sc          properties.Scenario
		transitions int
		diff        string
	}{
		{scenarios.CacheStaleOnScaleDown(), 1, `Pod default/web-#1 spec.containers[0].image: "v1" after the transitions, "v2" in a fresh cluster`},
		{scenarios.CacheKeepsRemovedTier(), 2, `Pod default/web-#1 spec.tier: "gold" after the transitions, <none> in a fresh cluster`},
	} {
		t.Run(tc.sc.Name, func(t *testing.T) {
			res, memo := searchInputs(t, tc.sc, 300)
			cx := res.Counterexample
			require.NotNil(t, cx, "no goal, yet the oracle must find the bug")
			assert.Equal(t, properties.HistoryDependent, cx.Failure.Verdict, cx.Report())
			assert.Len(t, cx.Inputs, tc.transitions, cx.Report())
			assert.LessOrEqual(t, len(cx.Inputs), 2)
			assert.Empty(t, cx.Schedule)
			assert.Equal(t, []string{tc.diff}, cx.Failure.Details, cx.Report())
			assert.Contains(t, cx.Report(), "<- the history starts here")
			assert.Positive(t, memo.Hits, "shrinking ends on the same final specs again and again")

			// The counterexample replays from its transitions and
			// choices, trace for trace.
			out, diverged, err := properties.Replay(tc.sc, cx.Schedule, cx.Choices, properties.RunOptions{Inputs: cx.Inputs})
			require.NoError(t, err)
			assert.False(t, diverged)
			assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
			require.NotNil(t, out.Failure)
			assert.Equal(t, cx.Failure.Report(cx.Schedule), out.Failure.Report(cx.Schedule))
		})
	}
}

func TestAnInputTheCacheOperatorMishandlesIsFoundInOneTransition(t *testing.T) {
	res, _ := searchInputs(t, scenarios.CachePanicsOnTier(), 100)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, properties.ControllerPanic, cx.Failure.Verdict, cx.Report())
	require.Len(t, cx.Inputs, 1, cx.Report())
	assert.Equal(t, `{image: "v1", replicas: 0, tier: "gold"}`, cx.Inputs[0].String())
	assert.Contains(t, cx.Failure.Summary, "integer divide by zero")
}

func TestTheFixedCacheOperatorIsHistoryIndependent(t *testing.T) {
	res, memo := searchInputs(t, scenarios.CacheFixed(), 100)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("must pass, but:\n%s", cx.Report())
	}
	// Spec draws 4 replica counts × 2 images × 3 tiers: at most 24
	// reference runs, whatever the number of runs.
	assert.LessOrEqual(t, memo.Misses, 24)
	assert.Positive(t, memo.Hits)
}

func TestARunWithInputsIsDeterministic(t *testing.T) {
	sc := scenarios.CacheKeepsRemovedTier()
	a, _ := searchInputs(t, sc, 300)
	b, _ := searchInputs(t, sc, 300)
	require.NotNil(t, a.Counterexample)
	require.NotNil(t, b.Counterexample)
	assert.Equal(t, a.Runs, b.Runs)
	assert.Equal(t, a.Counterexample.Inputs, b.Counterexample.Inputs)
	assert.Equal(t, a.Counterexample.Choices, b.Counterexample.Choices)
	assert.Equal(t, a.Counterexample.Trace.Hash(), b.Counterexample.Trace.Hash())
	assert.True(t, strings.HasPrefix(a.Counterexample.Replay, "go run ./cmd/fuzzrun -scenario cache-stale-tier"), a.Counterexample.Replay)
}

// timerFirst picks the last enabled action, the next timer, at every
// choice: in the Cache world, whose only timer in the fault phase is its
// end, the first choice ends the phase before the state-transition actor
// has moved.
type timerFirst struct{}

func (timerFirst) Choose(n int, _ string) int { return n - 1 }

// TestEveryGivenTransitionIsApplied: a fault phase that ends before the
// state-transition actor has moved still applies every transition the run
// was given, each once the cluster settled, at the time the phase ended;
// before, the run judged the history it was given without it (a third of
// the cache-stale-tier runs given one transition applied none), and the
// tier put and removed here was never tried.
func TestEveryGivenTransitionIsApplied(t *testing.T) {
	sc := scenarios.CacheKeepsRemovedTier()
	ts := properties.Transitions{
		model.NewFields(model.Values{"replicas": int64(2), "image": "v1", "tier": "gold"}),
		model.NewFields(model.Values{"replicas": int64(2), "image": "v1"}),
	}
	out, err := properties.Execute(sc, nil, timerFirst{}, properties.RunOptions{Inputs: ts})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 2, "every transition given is applied")
	for _, tr := range out.Transitions {
		assert.Equal(t, model.Time(60), tr.At, "at the end of the fault phase")
	}
	require.NotNil(t, out.Failure, "the tier put and removed stays in the members")
	assert.Equal(t, properties.HistoryDependent, out.Failure.Verdict)
}
