package properties_test

import (
	"encoding/json"
	"testing"

	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ignoresConflicts is the controller that swallows a Conflict on its
// writes, under every healable kind: rapid's draws alone find it from 6
// of 20 seeds within 100 runs (BENCHMARKS.md, "Bug classes"), since it
// needs a Conflict failing the writes of one reconcile.
func ignoresConflicts(t *testing.T) *properties.Prepared {
	t.Helper()
	sc := properties.Scenario{Name: "ignores-conflicts", Build: broken.QuietWorld(broken.IgnoresConflicts())}
	p, err := properties.Prepare(sc, scenarios.Healable)
	require.NoError(t, err)
	return p
}

// plannedFinding is ignores-conflicts' counterexample from a search of
// 100 runs from seed 1, which a planned run finds.
func plannedFinding(t *testing.T, p *properties.Prepared) *properties.Counterexample {
	t.Helper()
	sr, err := p.Search(properties.SearchOptions{Checks: 100, Seed: 1, Test: t})
	require.NoError(t, err)
	cx := sr.Counterexample
	require.NotNil(t, cx)
	require.Positive(t, cx.Planned)
	return cx
}

// TestThePlanFindsWhatRandomDrawsMiss: seed 1 of ignores-conflicts is
// found by a planned run, an API Conflict on the controller's first
// writes, within the search's first 20 runs; rapid's draws alone, the
// same seed's runs without the plan, do not find it within 100.
func TestThePlanFindsWhatRandomDrawsMiss(t *testing.T) {
	p := ignoresConflicts(t)
	opts := properties.SearchOptions{Checks: 100, Seed: 1, Test: t}
	with, err := p.Search(opts)
	require.NoError(t, err)
	require.NotNil(t, with.Counterexample)
	cx := with.Counterexample
	assert.Equal(t, properties.ResyncDependent, cx.Failure.Verdict)
	assert.Positive(t, cx.Planned, "found by a planned run")
	assert.LessOrEqual(t, with.Runs, 20)
	require.Len(t, cx.Schedule, 1)
	fault, ok := cx.Schedule[0].Fault.(faults.APIError)
	require.True(t, ok, "an API error: %s", cx.Schedule)
	assert.Equal(t, faults.ErrConflict, fault.Error)
	assert.Contains(t, cx.Replay, "-rapid.seed=1", "the go test line searches from the seed again")

	without, err := p.Search(properties.WithoutPlan(opts))
	require.NoError(t, err)
	if without.Counterexample != nil {
		assert.NotEqual(t, properties.ResyncDependent, without.Counterexample.Failure.Verdict, "rapid's draws alone found it at run %d", without.Runs)
	}
}

// TestAPlannedFindingReplaysFromItsFile: a planned counterexample's
// schedule, written as a finding file writes it and read back, with its
// choices replays the run trace for trace.
func TestAPlannedFindingReplaysFromItsFile(t *testing.T) {
	cx := plannedFinding(t, ignoresConflicts(t))
	assert.Contains(t, cx.Report(), "replay: ")

	data, err := json.Marshal(cx.Schedule)
	require.NoError(t, err)
	var sched faults.Schedule
	require.NoError(t, json.Unmarshal(data, &sched))
	sc := properties.Scenario{Name: "ignores-conflicts", Build: broken.QuietWorld(broken.IgnoresConflicts())}
	out, diverged, err := properties.Replay(sc, sched, cx.Choices, properties.RunOptions{})
	require.NoError(t, err)
	assert.False(t, diverged)
	require.NotNil(t, out.Failure)
	assert.Equal(t, cx.Failure.Verdict, out.Failure.Verdict)
	assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
}

// TestThePlanIsTheSameForASeed: the same seed gives the same plan and
// the same search, run for run; another seed orders the plan otherwise,
// over the same schedules.
func TestThePlanIsTheSameForASeed(t *testing.T) {
	p := ignoresConflicts(t)
	plan := properties.PlanOf(p, 7)
	require.NotEmpty(t, plan)
	assert.Equal(t, plan, properties.PlanOf(p, 7))
	other := properties.PlanOf(p, 8)
	assert.NotEqual(t, plan, other)
	assert.ElementsMatch(t, plan, other)
	for _, s := range plan {
		assert.Len(t, s, 1, "a plan is of single faults")
		assert.NoError(t, s.Fits(scenarios.Healable, p.Plan().Topology, p.Plan().Budget))
	}
	// Faithful kinds come first in each round: the first round holds one
	// schedule of each kind, faithful ones before adversarial ones.
	faithful, _ := scenarios.Healable.Split()
	for i, s := range plan[:len(faithful)] {
		assert.Contains(t, faithful, s[0].Fault.Kind(), "schedule %d", i)
	}

	search := func() *properties.SearchResult {
		sr, err := p.Search(properties.SearchOptions{Checks: 100, Seed: 7, Test: t})
		require.NoError(t, err)
		return sr
	}
	a, b := search(), search()
	assert.Equal(t, a.Runs, b.Runs)
	require.NotNil(t, a.Counterexample)
	require.NotNil(t, b.Counterexample)
	assert.Equal(t, a.Counterexample.Schedule, b.Counterexample.Schedule)
	assert.Equal(t, a.Counterexample.Choices, b.Counterexample.Choices)
	assert.Equal(t, a.Counterexample.Trace.Hash(), b.Counterexample.Trace.Hash())
}

// TestASearchOfOneRunHasNoPlan: fuzzrun searches each seed with one run;
// it is rapid's, as before the plan, so campaigns and seed replays do
// not move.
func TestASearchOfOneRunHasNoPlan(t *testing.T) {
	p := ignoresConflicts(t)
	for seed := uint64(1); seed <= 5; seed++ {
		opts := properties.SearchOptions{Checks: 1, Seed: seed, Test: t}
		with, err := p.Search(opts)
		require.NoError(t, err)
		without, err := p.Search(properties.WithoutPlan(opts))
		require.NoError(t, err)
		assert.Equal(t, without.Runs, with.Runs)
		assert.Equal(t, without.Counterexample == nil, with.Counterexample == nil, "seed %d", seed)
		if with.Counterexample != nil {
			assert.Zero(t, with.Counterexample.Planned)
		}
	}
}

// TestRapidsRunsKeepTheirSeedsBetweenPlannedOnes: rapid's r-th run is
// the search's (2r-1)-th while the plan lasts, and is the run it was
// without the plan: where no planned run fails first (poll-gives-up, a
// delay of the right length at the right time), the search finds what
// it found without the plan, with the same seed, schedule and trace.
func TestRapidsRunsKeepTheirSeedsBetweenPlannedOnes(t *testing.T) {
	var sc properties.Scenario
	for _, s := range scenarios.All() {
		if s.Name == "poll-gives-up" {
			sc = s
		}
	}
	require.NotEmpty(t, sc.Name)
	p, err := properties.Prepare(sc, faults.Mix{faults.KindDelay})
	require.NoError(t, err)
	matched := 0
	for seed := uint64(1); seed <= 10 && matched < 2; seed++ {
		opts := properties.SearchOptions{Checks: 100, Seed: seed, Test: t}
		without, err := p.Search(properties.WithoutPlan(opts))
		require.NoError(t, err)
		with, err := p.Search(opts)
		require.NoError(t, err)
		if without.Counterexample == nil || without.Runs < 2 || with.Counterexample == nil || with.Counterexample.Planned > 0 {
			continue
		}
		// Rapid's r-th run follows r-1 planned runs while the plan lasts.
		// Each round of the plan is run twice (choices 0, then drawn).
		r, planned := without.Runs, min(2*len(properties.PlanOf(p, seed)), 50)
		assert.Equal(t, r+min(r-1, planned), with.Runs, "seed %d", seed)
		assert.Equal(t, without.Counterexample.Seed, with.Counterexample.Seed)
		assert.Equal(t, without.Counterexample.Schedule, with.Counterexample.Schedule)
		assert.Equal(t, without.Counterexample.Trace.Hash(), with.Counterexample.Trace.Hash())
		matched++
	}
	require.Positive(t, matched, "no seed in 1-10 found by rapid's run past its first")
}

// BenchmarkPlan measures what the plan costs a search: reading it off
// the landmarks of the dry run Prepare already made (go test ./properties
// -run '^$' -bench BenchmarkPlan).
func BenchmarkPlan(b *testing.B) {
	sc := properties.Scenario{Name: "ignores-conflicts", Build: broken.QuietWorld(broken.IgnoresConflicts())}
	p, err := properties.Prepare(sc, scenarios.Healable)
	require.NoError(b, err)
	b.Run("plan", func(b *testing.B) {
		for i := range b.N {
			_ = properties.PlanOf(p, uint64(i))
		}
	})
	b.Run("prepare", func(b *testing.B) {
		for range b.N {
			_, _ = properties.Prepare(sc, scenarios.Healable)
		}
	})
}

// TestThePlansFirstRoundComesBeforeRapidsSecondRun: under every healable
// kind, seed 3 of ignores-conflicts is found by the apierror run of the
// plan's first round, at a place the seed gives it past the third; every
// run before it but rapid's first is planned, so it is found at run
// planned + 1, not 2 × planned as when the plan alternated with rapid's
// runs from the start (docs/design.md, "Ordering the plan").
func TestThePlansFirstRoundComesBeforeRapidsSecondRun(t *testing.T) {
	p := ignoresConflicts(t)
	res, err := p.Search(properties.SearchOptions{Checks: 100, Seed: 3, Test: t})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.GreaterOrEqual(t, cx.Planned, 3, "the seed puts apierror late in the first round")
	assert.Equal(t, cx.Planned+1, res.Runs, "the first round's runs back to back after rapid's first")
}

// TestABundledRunsFindingKeepsItsOwnFault: under every healable kind,
// seed 8 of ignores-conflicts puts the apierror kind eighth in the plan's
// first round, so a first pass of one kind a run would reach it at run 9.
// Bundled two kinds a run, it is the fourth planned run, beside a
// restart, found at run 5; the bundle's faults are then run alone, and
// the finding is the API Conflict alone (docs/design.md, "Ordering the
// plan").
func TestABundledRunsFindingKeepsItsOwnFault(t *testing.T) {
	p := ignoresConflicts(t)
	res, err := p.Search(properties.SearchOptions{Checks: 100, Seed: 8, Test: t})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, 4, cx.Planned)
	assert.Equal(t, 5, res.Runs, "rapid's first run, then the first pass's bundles")
	bundle := properties.PlannedRunsOf(p, 8)[cx.Planned-1]
	require.Len(t, bundle, 2, "the run that failed bundled two kinds")
	require.Len(t, cx.Schedule, 1, "the finding keeps the one fault it needs")
	assert.Equal(t, faults.KindAPIError, cx.Schedule[0].Fault.Kind())
	assert.Contains(t, bundle, cx.Schedule[0])
}
