package properties_test

import (
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShrinkingDoesNotDependOnTheClock: rapid stops shrinking at its
// -rapid.shrinktime, so a loaded machine used to shrink one seed to 13
// steps and to 15 in another run. Search lifts the limit: with a limit of
// one nanosecond, the shrunk counterexample is the same.
func TestShrinkingDoesNotDependOnTheClock(t *testing.T) {
	sc := scenarios.ReplicaSetEdge()
	mix := faults.Mix{faults.KindDrop, faults.KindRestart}
	search := func() *properties.Counterexample {
		res, err := properties.Search(sc, mix, properties.SearchOptions{Test: t, Checks: 100, Seed: 5})
		require.NoError(t, err)
		require.NotNil(t, res.Counterexample)
		return res.Counterexample
	}
	relaxed := search()
	f := flag.Lookup("rapid.shrinktime")
	require.NotNil(t, f)
	saved := f.Value.String()
	require.NoError(t, flag.Set("rapid.shrinktime", "1ns"))
	defer func() { _ = flag.Set("rapid.shrinktime", saved) }()
	hurried := search()
	assert.Equal(t, relaxed.Schedule.String(), hurried.Schedule.String())
	assert.Equal(t, relaxed.Choices, hurried.Choices)
	assert.Equal(t, relaxed.Trace.Hash(), hurried.Trace.Hash())
}

// TestFaultsAfterTheViolationAreNotInTheCounterexample: a fault scheduled
// after the run already failed never struck; Outcome.Struck leaves it out,
// and so does every shrunk schedule.
func TestFaultsAfterTheViolationAreNotInTheCounterexample(t *testing.T) {
	sc := scenarios.ReplicaSetStale()
	plan, err := properties.PlanFor(sc, faults.Mix{faults.KindStale})
	require.NoError(t, err)
	late := faults.Schedule{{At: plan.Budget.Horizon, Fault: faults.Stale{Controller: "replicaset", Resource: "Pod", Behind: 1, For: 1}}}
	failedEarly := 0
	for seed := range uint64(20) {
		out, err := properties.Execute(sc, late, prng{rand.New(rand.NewPCG(seed, 5))}, properties.RunOptions{DiscardTrace: true})
		require.NoError(t, err)
		if out.Failure != nil && !out.Healed {
			failedEarly++
			assert.Empty(t, out.Struck(), "seed %d", seed)
		}
	}
	require.Positive(t, failedEarly)

	for _, mix := range []faults.Mix{{faults.KindStale}, {faults.KindStale, faults.KindRestart, faults.KindDrop}} {
		res, err := properties.Search(sc, mix, properties.SearchOptions{Test: t, Checks: 50, Seed: 1})
		require.NoError(t, err)
		cx := res.Counterexample
		require.NotNil(t, cx)
		struck := 0
		for _, r := range cx.Trace.Records {
			if r.Actor == "fault" {
				struck++
			}
		}
		assert.Equal(t, len(cx.Schedule), struck, "every fault of the shrunk schedule struck:\n%s", cx.Report())
	}
}
