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

// TestShrinkingAnswersRepeatedPassingRunsWithoutRunningThem: once a search
// has failed, a run whose draws repeat those of a run that passed is not
// made again. The searches build far fewer clusters, and find and shrink
// to exactly the same counterexample, under random search and PCT (seed 1:
// 217 builds instead of 1,215, and 233 instead of 702).
func TestShrinkingAnswersRepeatedPassingRunsWithoutRunningThem(t *testing.T) {
	const seed = 1
	for _, strategy := range []properties.Strategy{{Name: properties.StrategyRandom}, {Name: properties.StrategyPCT}} {
		sc := scenarios.ReplicaSetEdge()
		builds := countBuilds(&sc)
		// Rapid's shrinking is measured: without the planned runs.
		opts := properties.WithoutPlan(properties.SearchOptions{Test: t, Checks: 1000, Seed: seed, Strategy: strategy})
		with, err := properties.Search(sc, faults.Mix{faults.KindDrop}, opts)
		require.NoError(t, err)
		withBuilds := *builds
		*builds = 0
		without, err := properties.Search(sc, faults.Mix{faults.KindDrop}, properties.WithoutMemo(opts))
		require.NoError(t, err)
		require.NotNil(t, with.Counterexample, "%v seed %d", strategy, seed)
		require.NotNil(t, without.Counterexample, "%v seed %d", strategy, seed)

		assert.Less(t, withBuilds, *builds*3/4, "%v seed %d: builds with the memo, without it", strategy, seed)
		assert.Equal(t, without.Runs, with.Runs)
		a, b := without.Counterexample, with.Counterexample
		assert.Equal(t, a.Schedule.String(), b.Schedule.String(), "%v seed %d", strategy, seed)
		assert.Equal(t, a.Choices, b.Choices, "%v seed %d", strategy, seed)
		assert.Equal(t, a.Trace.Hash(), b.Trace.Hash(), "%v seed %d", strategy, seed)
		assert.Equal(t, a.Report(), b.Report(), "%v seed %d", strategy, seed)
		t.Logf("%v seed %d: %d builds with the memo, %d without", strategy, seed, withBuilds, *builds)
	}
}

// TestAShrinkBuildsFewClusters: a step choice is drawn as a bit saying
// whether it is 0, then the rest of its value, so rapid's shrink
// proposals keep to the bits a run reads. Searching replicaset-edge under
// drop from seeds 1 to 6 built 13,493 clusters when choices were rapid's
// IntRange (docs/design.md, "Shrinking without re-running").
func TestAShrinkBuildsFewClusters(t *testing.T) {
	sc := scenarios.ReplicaSetEdge()
	builds := countBuilds(&sc)
	for seed := uint64(1); seed <= 6; seed++ {
		res, err := properties.Search(sc, faults.Mix{faults.KindDrop}, properties.WithoutPlan(properties.SearchOptions{Test: t, Checks: 1000, Seed: seed}))
		require.NoError(t, err)
		require.NotNil(t, res.Counterexample, "seed %d", seed)
	}
	assert.Less(t, *builds, 6000, "clusters built by six searches and their shrinks")
	t.Logf("%d builds", *builds)
}

// TestShrinkingRunsEachFailingRunOnce: rapid's shrinker proposes many bit
// strings that decode to a failing run already made, and checks each
// smaller failure twice; the memo answers them, so every distinct failing
// run (its schedule and choices) executes once. The first failure alone
// executes twice: rapid reproduces it before shrinking, a real run, so
// that a nondeterministic scenario is still reported (trap 6). Without the
// memo, the same failing runs execute again and again, and the
// counterexample and its report are the same either way.
func TestShrinkingRunsEachFailingRunOnce(t *testing.T) {
	search := func(opts properties.SearchOptions) (*properties.SearchResult, map[string]int, string) {
		made := map[string]map[*properties.Outcome]bool{}
		var first string
		opts = properties.ObservingRuns(opts, func(out *properties.Outcome, choices []int) {
			if out.Failure == nil {
				return
			}
			key := fmt.Sprintf("%s %v %v", out.Schedule, out.Inputs, choices)
			if first == "" {
				first = key
			}
			if made[key] == nil {
				made[key] = map[*properties.Outcome]bool{}
			}
			made[key][out] = true // a run made is a new outcome; an answer repeats one
		})
		res, err := properties.Search(scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}, opts)
		require.NoError(t, err)
		require.NotNil(t, res.Counterexample)
		counts := map[string]int{}
		for key, outs := range made {
			counts[key] = len(outs)
		}
		return res, counts, first
	}
	opts := properties.WithoutPlan(properties.SearchOptions{Test: t, Checks: 1000, Seed: 1})
	with, counts, first := search(opts)
	require.Greater(t, len(counts), 1, "distinct failing runs")
	for key, n := range counts {
		if key == first {
			assert.Equal(t, 2, n, "the first failure, and rapid's reproduction of it")
			continue
		}
		assert.Equal(t, 1, n, "executions of the failing run %s", key)
	}

	without, again, _ := search(properties.WithoutMemo(opts))
	most := 0
	for _, n := range again {
		most = max(most, n)
	}
	assert.Greater(t, most, 2, "without the memo, a failing run executes again and again")
	assert.Equal(t, without.Counterexample.Report(), with.Counterexample.Report())
	assert.Equal(t, without.Counterexample.Choices, with.Counterexample.Choices)
	assert.Equal(t, without.Counterexample.Trace.Hash(), with.Counterexample.Trace.Hash())
	t.Logf("%d distinct failing runs; without the memo one of them executed %d times", len(counts), most)
}
