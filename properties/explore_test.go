package properties_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func catalogScenario(t *testing.T, name string) properties.Scenario {
	t.Helper()
	for _, sc := range scenarios.All() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return properties.Scenario{}
}

var dropOnly = faults.Mix{faults.KindDrop}

// TestExploreFindsPlantedBugAtMinimalDepth: replicaset-noresync loses a
// rescale for good when one notification is dropped, but only on a path
// where the user rescales before the drop strikes: four decisions. Depth
// 3 proves there is none shorter, depth 4 finds it, at depth 4, and the
// counterexample replays through the ordinary runner.
func TestExploreFindsPlantedBugAtMinimalDepth(t *testing.T) {
	skipUnderRace(t)
	sc := catalogScenario(t, "replicaset-noresync")
	for _, stateless := range []bool{false, true} {
		short, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 3, Stateless: stateless})
		require.NoError(t, err)
		assert.Nil(t, short.Counterexample, "stateless %v", stateless)
		assert.Equal(t, 3, short.Depth)

		res, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 6, Stateless: stateless})
		require.NoError(t, err)
		require.NotNil(t, res.Counterexample, "stateless %v", stateless)
		assert.Equal(t, 4, res.Depth)
		cx := res.Counterexample
		assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict)
		require.Len(t, cx.Schedule, 1)
		assert.Equal(t, faults.KindDrop, cx.Schedule[0].Fault.Kind())
		assert.Contains(t, res.Guarantee(), "replicaset-noresync: counterexample at depth 4 (goal-unmet)")

		out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{})
		require.NoError(t, err)
		assert.False(t, diverged)
		require.NotNil(t, out.Failure)
		assert.Equal(t, cx.Failure.Verdict, out.Failure.Verdict)
		assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
	}
}

// TestExploreConvergingRowsReportNothing: the rows of the fault matrix
// that converge report no counterexample at small depth, and say so.
func TestExploreConvergingRowsReportNothing(t *testing.T) {
	for _, row := range []struct {
		scenario string
		mix      faults.Mix
	}{
		{"replicaset-level", dropOnly},
		{"replicaset-level", faults.Mix{faults.KindRestart}},
		{"replicaset-noresync", faults.Mix{faults.KindDuplicate}},
		{"replicaset-expectations", faults.Mix{faults.KindStale}},
	} {
		res, err := properties.Explore(catalogScenario(t, row.scenario), row.mix, properties.ExploreOptions{Depth: 3})
		require.NoError(t, err)
		assert.Nil(t, res.Counterexample, "%s %s", row.scenario, row.mix)
		assert.Equal(t, 3, res.Depth)
		assert.Positive(t, res.States)
		assert.Contains(t, res.Guarantee(), row.scenario+": no counterexample with ≤1 fault ("+row.mix.String()+") and ≤3 decisions (")
		assert.Contains(t, res.Guarantee(), "64-bit fingerprints, sleep sets; one canonical completion after the bound)")
	}
}

// TestExploreCachingAgrees: with and without state caching (which prunes
// within the bound and, past it, completions from states already
// completed) and sleep sets, exploration gives the same verdict at the
// same minimal depth, and each reduction runs no more executions than
// plain re-execution.
func TestExploreCachingAgrees(t *testing.T) {
	skipUnderRace(t)
	for _, row := range []struct {
		scenario string
		mix      faults.Mix
		depth    int
	}{
		{"replicaset-edge", dropOnly, 3},
		{"replicaset-edge", faults.Mix{faults.KindRestart}, 3},
		{"replicaset-noresync", dropOnly, 5},
		{"replicaset-level", dropOnly, 4},
		{"replicaset-stale", faults.Mix{faults.KindStale}, 3},
		{"replicaset-expectations", faults.Mix{faults.KindAPIError}, 4},
		{"replicaset-expectations", faults.Mix{faults.KindTimeTravel}, 3},
	} {
		sc := catalogScenario(t, row.scenario)
		name := row.scenario + " " + row.mix.String()
		plain, err := properties.Explore(sc, row.mix, properties.ExploreOptions{Depth: row.depth, Stateless: true, NoSleepSets: true})
		require.NoError(t, err)
		assert.Zero(t, plain.States)
		assert.Contains(t, plain.Guarantee(), "(stateless, ")
		for _, opts := range []properties.ExploreOptions{
			{Depth: row.depth},
			{Depth: row.depth, NoSleepSets: true},
			{Depth: row.depth, Stateless: true},
		} {
			res, err := properties.Explore(sc, row.mix, opts)
			require.NoError(t, err)
			variant := fmt.Sprintf("%s (stateless %v, no sleep sets %v)", name, opts.Stateless, opts.NoSleepSets)
			assert.Equal(t, plain.Depth, res.Depth, variant)
			require.Equal(t, plain.Counterexample == nil, res.Counterexample == nil, variant)
			if res.Counterexample != nil {
				assert.Equal(t, plain.Counterexample.Failure.Verdict, res.Counterexample.Failure.Verdict, variant)
			}
			assert.LessOrEqual(t, res.Executions, plain.Executions, variant)
			t.Logf("%s: %d executions (plain %d)", variant, res.Executions, plain.Executions)
		}
	}
}

// TestExploreWithAFullCache: a cache that can hold only a few states
// stays that size, and explores again the paths it would have pruned: the
// same minimal depth and counterexample, the same guarantee where there is
// none, with more executions.
func TestExploreWithAFullCache(t *testing.T) {
	for _, row := range []struct {
		scenario string
		depth    int
	}{
		{"replicaset-edge", 3},
		{"replicaset-noresync", 5},
		{"replicaset-level", 3},
	} {
		if raceEnabled && row.depth > 3 {
			continue // the shallow rows check workers sharing the bound under -race
		}
		sc := catalogScenario(t, row.scenario)
		whole, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: row.depth})
		require.NoError(t, err)
		assert.False(t, whole.CacheFull)
		capped, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: row.depth, MaxStates: 20})
		require.NoError(t, err)
		assert.True(t, capped.CacheFull, row.scenario)
		assert.Equal(t, 20, capped.States, row.scenario)
		assert.Contains(t, capped.Guarantee(), "; state cache full;")
		assert.Equal(t, whole.Depth, capped.Depth, row.scenario)
		require.Equal(t, whole.Counterexample == nil, capped.Counterexample == nil, row.scenario)
		if whole.Counterexample != nil {
			assert.Equal(t, whole.Counterexample.Trace.Hash(), capped.Counterexample.Trace.Hash(), row.scenario)
			assert.GreaterOrEqual(t, capped.Executions, whole.Executions, row.scenario)
		} else {
			assert.Greater(t, capped.Executions, whole.Executions, row.scenario)
		}
		assert.Greater(t, whole.States, capped.States, row.scenario)
		t.Logf("%s: %d executions with %d states recorded, %d with all %d", row.scenario, capped.Executions, capped.States, whole.Executions, whole.States)

		// Workers side by side share the bound.
		side, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: row.depth, MaxStates: 20, Workers: 2})
		require.NoError(t, err)
		assert.True(t, side.CacheFull, row.scenario)
		assert.Equal(t, 20, side.States, row.scenario)
		assert.Equal(t, whole.Depth, side.Depth, row.scenario)
		if whole.Counterexample != nil {
			require.NotNil(t, side.Counterexample, row.scenario)
			assert.Equal(t, whole.Counterexample.Trace.Hash(), side.Counterexample.Trace.Hash(), row.scenario)
		}
	}
}

func TestExploreRejectsBadOptions(t *testing.T) {
	sc := catalogScenario(t, "replicaset-level")
	for _, tc := range []struct {
		opts properties.ExploreOptions
		want string
	}{
		{properties.ExploreOptions{}, "explore depth 0: must be in [1, 64]"},
		{properties.ExploreOptions{Depth: 65}, "explore depth 65"},
		{properties.ExploreOptions{Depth: 2, Faults: -1}, "explore faults -1: must be in [0, 4]"},
		{properties.ExploreOptions{Depth: 2, Budget: -1}, "explore budget -1ns"},
		{properties.ExploreOptions{Depth: 2, MaxStates: -1}, "explore max states -1: must be in [0, 268435456]"},
		{properties.ExploreOptions{Depth: 2, MaxStates: properties.MaxExploreMaxStates + 1}, "explore max states 268435457: must be in [0, 268435456]"},
	} {
		_, err := properties.Explore(sc, dropOnly, tc.opts)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := properties.Explore(sc, faults.Mix{"bogus"}, properties.ExploreOptions{Depth: 2})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown fault kind "bogus"`)
}

// TestExploreWithoutFaults explores the interleavings alone.
func TestExploreWithoutFaults(t *testing.T) {
	res, err := properties.Explore(catalogScenario(t, "replicaset-edge"), nil, properties.ExploreOptions{Depth: 3})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample)
	assert.Zero(t, res.FaultSpace)
	assert.Contains(t, res.Guarantee(), "replicaset-edge: no counterexample without faults and ≤3 decisions (")
}

// TestExploreNamesUnfingerprintedMemory: the catalog's controllers,
// actors and monitors declare their memory, so nothing is named; a
// scenario with a monitor that does not (no Invariant.Fingerprint) says
// so.
func TestExploreNamesUnfingerprintedMemory(t *testing.T) {
	for _, name := range []string{"replicaset-edge", "deployment", "statefulset", "timetravel-fixed"} {
		res, err := properties.Explore(catalogScenario(t, name), nil, properties.ExploreOptions{Depth: 1})
		require.NoError(t, err)
		assert.Empty(t, res.Unfingerprinted, name)
		assert.NotContains(t, res.Guarantee(), "not fingerprinted", name)
	}

	sc := catalogScenario(t, "replicaset-edge")
	sc.Monitors = func(c *model.Cluster) []properties.Invariant {
		writes := 0
		c.OnWrite(func(model.Write) { writes++ })
		return []properties.Invariant{{Name: "counts writes", Check: func(model.State) error { return nil }}}
	}
	res, err := properties.Explore(sc, nil, properties.ExploreOptions{Depth: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"monitors"}, res.Unfingerprinted)
	assert.Contains(t, res.Guarantee(), "memory not fingerprinted: monitors;")
}

// TestExploreSaysItDrawsNoInputs: a scenario with state-transition inputs
// explored with NoInputs says so in its guarantee; one without inputs
// says nothing of them.
func TestExploreSaysItDrawsNoInputs(t *testing.T) {
	res, err := properties.Explore(catalogScenario(t, "cache-fixed"), nil, properties.ExploreOptions{Depth: 1, NoInputs: true})
	require.NoError(t, err)
	assert.True(t, res.InputsNotExplored)
	assert.Contains(t, res.Guarantee(), "; its state-transition inputs not explored)")
	res, err = properties.Explore(catalogScenario(t, "replicaset-edge"), nil, properties.ExploreOptions{Depth: 1})
	require.NoError(t, err)
	assert.NotContains(t, res.Guarantee(), "inputs")
}

// TestExploreBudget: a spent budget stops deepening, and the result says
// how deep it got.
func TestExploreBudget(t *testing.T) {
	res, err := properties.Explore(catalogScenario(t, "replicaset-level"), dropOnly, properties.ExploreOptions{Depth: 30, Budget: 1})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Zero(t, res.Depth)
	assert.Nil(t, res.Counterexample)
	assert.Equal(t, "replicaset-level: no depth fully explored: the budget was spent at depth 1 (0 executions)", res.Guarantee())
}

// TestExploreCountsDepths: deepening calls Progress once per finished
// depth, with growing counts.
func TestExploreCountsDepths(t *testing.T) {
	var depths, executions []int
	res, err := properties.Explore(catalogScenario(t, "replicaset-level"), dropOnly, properties.ExploreOptions{Depth: 3, Progress: func(r properties.ExploreResult) {
		depths = append(depths, r.Depth)
		executions = append(executions, r.Executions)
	}})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, depths)
	assert.IsIncreasing(t, executions)
	assert.Equal(t, 2, res.FaultSpace, "drop on each informer: ReplicaSet and Pod")
	assert.Equal(t, res.Executions, executions[2])
	// The completions past the bound are part of the steps, and the
	// completion cache prunes some runs, never more than ran.
	assert.Positive(t, res.CompletionSteps)
	assert.Less(t, res.CompletionSteps, res.Steps)
	assert.Positive(t, res.Pruned)
	assert.Less(t, res.Pruned, res.Executions)
	plain, err := properties.Explore(catalogScenario(t, "replicaset-level"), dropOnly, properties.ExploreOptions{Depth: 3, Stateless: true, NoSleepSets: true})
	require.NoError(t, err)
	assert.Zero(t, plain.Pruned, "nothing prunes without caching or sleep sets")
}

// loggingTB is a test whose logs are kept.
type loggingTB struct {
	testing.TB
	logs []string
}

func (l *loggingTB) Logf(format string, args ...any) {
	l.logs = append(l.logs, fmt.Sprintf(format, args...))
}

// TestExploreLogsDepthsToItsTest: an exploration run for a test, with no
// Progress of its own, logs each depth it finishes to the test, so that a
// long one shows how far it got under go test -v.
func TestExploreLogsDepthsToItsTest(t *testing.T) {
	tb := &loggingTB{TB: t}
	_, err := properties.Explore(catalogScenario(t, "replicaset-level"), dropOnly, properties.ExploreOptions{Depth: 2, Test: tb})
	require.NoError(t, err)
	require.Len(t, tb.logs, 2)
	assert.True(t, strings.HasPrefix(tb.logs[0], "replicaset-level: depth 1 of 2 explored ("), tb.logs[0])
	assert.True(t, strings.HasPrefix(tb.logs[1], "replicaset-level: depth 2 of 2 explored ("), tb.logs[1])

	quiet := &loggingTB{TB: t}
	_, err = properties.Explore(catalogScenario(t, "replicaset-level"), dropOnly, properties.ExploreOptions{Depth: 2, Test: quiet, Progress: func(properties.ExploreResult) {}})
	require.NoError(t, err)
	assert.Empty(t, quiet.logs, "a Progress of its own replaces the logs")
}

// TestExploreIsDeterministic: the same exploration twice runs the same
// executions, sees the same states and finds the same counterexample.
func TestExploreIsDeterministic(t *testing.T) {
	skipUnderRace(t)
	sc := catalogScenario(t, "replicaset-noresync")
	a, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 5})
	require.NoError(t, err)
	b, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 5})
	require.NoError(t, err)
	require.NotNil(t, a.Counterexample)
	require.NotNil(t, b.Counterexample)
	assert.Equal(t, a.Executions, b.Executions)
	assert.Equal(t, a.States, b.States)
	assert.Equal(t, a.Counterexample.Choices, b.Counterexample.Choices)
	assert.Equal(t, a.Counterexample.Schedule.String(), b.Counterexample.Schedule.String())
	assert.Equal(t, a.Counterexample.Trace.Hash(), b.Counterexample.Trace.Hash())
}

// TestExploreEdgeFaultMatrix: exploration reproduces the README's fault
// matrix column of replicaset-edge, each failure at its minimal depth: it
// fails under drop, duplicate, expire, restart, edit and apierror, and
// shows nothing under delay, stale, rival and partition at small depth.
func TestExploreEdgeFaultMatrix(t *testing.T) {
	skipUnderRace(t)
	sc := catalogScenario(t, "replicaset-edge")
	for kind, depth := range map[faults.Kind]int{
		faults.KindDrop: 1, faults.KindDuplicate: 2, faults.KindExpire: 5,
		faults.KindRestart: 1, faults.KindEdit: 1, faults.KindAPIError: 1,
		faults.KindDelay: 0, faults.KindStale: 0, faults.KindRival: 0, faults.KindPartition: 0,
	} {
		opts := properties.ExploreOptions{Depth: 5}
		if depth == 0 {
			opts.Depth = 3
		}
		res, err := properties.Explore(sc, faults.Mix{kind}, opts)
		require.NoError(t, err)
		if depth == 0 {
			assert.Nil(t, res.Counterexample, "%s", kind)
			continue
		}
		require.NotNil(t, res.Counterexample, "%s", kind)
		assert.Equal(t, depth, res.Depth, "%s", kind)
		assert.Equal(t, properties.GoalUnmet, res.Counterexample.Failure.Verdict, "%s", kind)
	}
}

// TestExploreStrikesWithTimeTravel: timetravel is in the canonical fault
// space, so the time-travel scenario's bug is found (a space without it
// once printed "no counterexample" for this row).
func TestExploreStrikesWithTimeTravel(t *testing.T) {
	res, err := properties.Explore(catalogScenario(t, "timetravel"), faults.Mix{faults.KindTimeTravel}, properties.ExploreOptions{Depth: 3})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	assert.Equal(t, properties.InvariantBroken, res.Counterexample.Failure.Verdict)
	assert.Positive(t, res.FaultSpace)
}

// TestExploreWrapsEveryExecution: Wrap wraps each execution, pruned ones
// included, the build that names unfingerprinted memory and the
// counterexample's replay, and changes nothing of the result.
func TestExploreWrapsEveryExecution(t *testing.T) {
	skipUnderRace(t)
	sc := catalogScenario(t, "replicaset-noresync")
	plain, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 5})
	require.NoError(t, err)
	calls := 0
	wrap := func(prop func(*rapid.T)) func(*rapid.T) {
		return func(rt *rapid.T) {
			calls++
			prop(rt)
		}
	}
	wrapped, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 5, Wrap: wrap})
	require.NoError(t, err)
	require.NotNil(t, wrapped.Counterexample)
	assert.Equal(t, plain.Executions+3, calls, "every execution, and Prepare's dry run")
	assert.Positive(t, wrapped.Pruned)
	assert.Equal(t, plain.Guarantee(), wrapped.Guarantee())
	assert.Equal(t, plain.Counterexample.Trace.Hash(), wrapped.Counterexample.Trace.Hash())
}

// TestExploreReplayLine: a counterexample's replay line is the scenario's
// program exploring the row again, else the go test line of
// ExploreOptions.Test, else none, and the report then ends without one.
func TestExploreReplayLine(t *testing.T) {
	sc := catalogScenario(t, "replicaset-edge")
	res, err := properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 3})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	assert.Equal(t, "go run ./cmd/fuzzrun -strategy exhaustive -scenario replicaset-edge -faults drop -depth 1 -max-faults 1 -duration 0", res.Counterexample.Replay)

	sc.Program = ""
	res, err = properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 3, Test: t})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	assert.Equal(t, "go test ./properties -run '^TestExploreReplayLine$'", res.Counterexample.Replay)
	assert.Contains(t, res.Counterexample.Report(), "\nreplay: go test ./properties -run '^TestExploreReplayLine$'\n")

	res, err = properties.Explore(sc, dropOnly, properties.ExploreOptions{Depth: 3})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	assert.Empty(t, res.Counterexample.Replay)
	assert.NotContains(t, res.Counterexample.Report(), "replay:")
}

// TestExploreTriesFaithfulFaultsFirst: at each depth the schedules of
// faithful faults alone are explored before those with an adversarial
// one. replicaset-edge fails at depth 1 under drop (adversarial) and
// under restart (faithful): the restart is the counterexample. Under
// duplicate (faithful) it needs depth 2, so with drop the counterexample
// at depth 1 is the drop, and its report says the faithful faults were
// tried first.
func TestExploreTriesFaithfulFaultsFirst(t *testing.T) {
	sc := catalogScenario(t, "replicaset-edge")
	res, err := properties.Explore(sc, faults.Mix{faults.KindDrop, faults.KindRestart}, properties.ExploreOptions{Depth: 3})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, 1, res.Depth)
	assert.Equal(t, faults.Faithful, cx.Class)
	require.Len(t, cx.Schedule, 1)
	assert.Equal(t, faults.KindRestart, cx.Schedule[0].Fault.Kind())

	res, err = properties.Explore(sc, faults.Mix{faults.KindDrop, faults.KindDuplicate}, properties.ExploreOptions{Depth: 3})
	require.NoError(t, err)
	cx = res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, 1, res.Depth)
	assert.Equal(t, faults.Adversarial, cx.Class)
	assert.Contains(t, cx.Report(), "Exploration tried the faithful faults alone (duplicate) first: none fails within this depth.")
}
