package properties_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/examples/cache"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestExploreFindsBugsInInputs: the Cache operators' bugs need state
// transitions, no fault. Exploration applies every sequence of up to
// three transitions among six specs its generator draws, fewest first,
// and finds each bug at depth 1 with the fewest transitions that show it:
// one for the scale-down that keeps an old image and for the tier with no
// replicas, two for the tier set and then dropped. Each counterexample
// carries its transitions and replays byte for byte. The fixed operator
// shows nothing.
func TestExploreFindsBugsInInputs(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range []struct {
		scenario    string
		verdict     properties.Verdict
		transitions int
	}{
		{"cache-stale-scaledown", properties.HistoryDependent, 1},
		{"cache-stale-tier", properties.HistoryDependent, 2},
		{"cache-panic-tier", properties.ControllerPanic, 1},
	} {
		sc := catalogScenario(t, tc.scenario)
		res, err := properties.Explore(sc, nil, properties.ExploreOptions{Depth: 2})
		require.NoError(t, err)
		cx := res.Counterexample
		require.NotNil(t, cx, tc.scenario)
		assert.Equal(t, 1, res.Depth, tc.scenario)
		assert.Equal(t, tc.verdict, cx.Failure.Verdict, tc.scenario)
		assert.Len(t, cx.Inputs, tc.transitions, tc.scenario)
		assert.Contains(t, res.Guarantee(), "; inputs: ≤3 transitions among 6 specs)")
		assert.Contains(t, cx.Report(), "inputs ("+plural(len(cx.Inputs), "transition")+" of Cache default/web):")

		out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{Inputs: cx.Inputs})
		require.NoError(t, err)
		assert.False(t, diverged)
		assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash(), tc.scenario)
	}

	res, err := properties.Explore(catalogScenario(t, "cache-fixed"), nil, properties.ExploreOptions{Depth: 2})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample)
	assert.Equal(t, 2, res.Depth)
	assert.Equal(t, 6, res.InputSpecs)
	assert.Equal(t, 3, res.MaxTransitions)
}

// TestExploreInputsLimits: what the inputs explored are shows in the
// guarantee. Without inputs the tier bug is not seen; four specs do not
// hold the spec with a tier and members that it needs.
func TestExploreInputsLimits(t *testing.T) {
	sc := catalogScenario(t, "cache-stale-tier")
	for _, tc := range []struct {
		opts properties.ExploreOptions
		says string
	}{
		{properties.ExploreOptions{Depth: 2, NoInputs: true}, "; its state-transition inputs not explored)"},
		{properties.ExploreOptions{Depth: 2, Inputs: 4}, "; inputs: ≤3 transitions among 4 specs)"},
	} {
		res, err := properties.Explore(sc, nil, tc.opts)
		require.NoError(t, err)
		assert.Nil(t, res.Counterexample)
		assert.Contains(t, res.Guarantee(), tc.says)
	}
}

// TestExploreInputsCachingAgrees: which spec a transition sets is chosen
// as the actor makes it; what it set is then in the server's state, and
// the transitions left in the actor's moves, so the cache prunes no
// sequence for another: stateful and stateless exploration find the tier
// bug, whose sequence is not the first of its length, with the same
// trace.
func TestExploreInputsCachingAgrees(t *testing.T) {
	sc := catalogScenario(t, "cache-stale-tier")
	var hashes []string
	for _, stateless := range []bool{false, true} {
		res, err := properties.Explore(sc, nil, properties.ExploreOptions{Depth: 2, Stateless: stateless})
		require.NoError(t, err)
		require.NotNil(t, res.Counterexample, "stateless %v", stateless)
		assert.Equal(t, 1, res.Depth)
		hashes = append(hashes, res.Counterexample.Trace.Hash())
	}
	assert.Equal(t, hashes[0], hashes[1])
}

// TestExploreSpecs: the specs are the generator's first distinct draws,
// the same every time; a generator that fails is an error, not a panic.
func TestExploreSpecs(t *testing.T) {
	in := &properties.Inputs{Target: model.Ref{Kind: cache.Kind, Namespace: "default", Name: "web"}, Spec: cache.Spec()}
	specs, err := properties.ExploreSpecs(in, 6)
	require.NoError(t, err)
	require.Len(t, specs, 6)
	again, err := properties.ExploreSpecs(in, 6)
	require.NoError(t, err)
	seen := map[string]bool{}
	for i := range specs {
		assert.True(t, specs[i].Equal(again[i]))
		seen[specs[i].String()] = true
	}
	assert.Len(t, seen, 6, "distinct")

	one := &properties.Inputs{Target: in.Target, Spec: rapid.Just(model.NewFields(model.Values{"replicas": int64(1)}))}
	specs, err = properties.ExploreSpecs(one, 6)
	require.NoError(t, err)
	assert.Len(t, specs, 1, "a generator of one value gives one spec")

	failing := &properties.Inputs{Target: in.Target, Spec: rapid.Custom(func(t *rapid.T) model.Fields {
		t.Fatalf("no spec")
		return model.Fields{}
	})}
	_, err = properties.ExploreSpecs(failing, 6)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "inputs: the Spec generator failed")
}

// plural renders "1 transition" or "2 transitions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// TestExploreInputsWithinDepthOne: a budget spent within depth 1, once the
// runs with fewer transitions than the scenario allows are explored, is
// reported as what those showed, not as nothing. Budgets here are counts
// of executions, so the point where it runs out is the same on every
// machine.
func TestExploreInputsWithinDepthOne(t *testing.T) {
	skipUnderRace(t)
	sc := catalogScenario(t, "cache-fixed")
	restart, err := faults.ParseMix("restart")
	require.NoError(t, err)
	for _, tc := range []struct {
		executions int
		guarantee  string
	}{
		{10, "cache-fixed: no depth fully explored: the budget was spent at depth 1 (10 executions)"},
		{200, "cache-fixed: no counterexample with ≤1 fault (restart) and ≤1 decision (623 states, 200 executions; 64-bit fingerprints, sleep sets; one canonical completion after the bound; inputs: ≤1 transition among 6 specs); budget spent before 2 transitions"},
		{800, "cache-fixed: no counterexample with ≤1 fault (restart) and ≤1 decision (2411 states, 800 executions; 64-bit fingerprints, sleep sets; one canonical completion after the bound; inputs: ≤2 transitions among 6 specs); budget spent before 3 transitions"},
	} {
		res, err := properties.Explore(sc, restart, properties.WithExecutionBudget(properties.ExploreOptions{Depth: 2}, tc.executions))
		require.NoError(t, err)
		assert.True(t, res.TimedOut)
		assert.Nil(t, res.Counterexample)
		assert.Equal(t, tc.guarantee, res.Guarantee())
	}
	whole, err := properties.Explore(sc, restart, properties.ExploreOptions{Depth: 1})
	require.NoError(t, err)
	assert.Equal(t, 3, whole.Transitions)
	assert.NotContains(t, whole.Guarantee(), "budget")
}
