package properties_test

import (
	"os"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claimChecks is the number of runs each convergence claim gets.
const claimChecks = 200

// ciChecks is claimChecks, or 20 under -race (see skipUnderRace), after
// the run without it gave all 200.
var ciChecks = raceBudget(claimChecks, 20)

// failChecks bounds the runs of a search that must fail. It stops at its
// first failure, so the bound costs only a miss; the rarest failures
// (ignores-conflicts needs a Conflict on its one write, about 1 run in
// 150) need more than ciChecks.
const failChecks = 1000

// search runs a search and fails the test on a broken scenario.
func search(t *testing.T, sc properties.Scenario, mix faults.Mix, checks int) *properties.SearchResult {
	t.Helper()
	res, err := properties.Search(sc, mix, properties.SearchOptions{Test: t, Checks: checks, Seed: 1})
	require.NoError(t, err)
	return res
}

// requireConverges asserts that every run of the search passed.
func requireConverges(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	res := search(t, sc, mix, ciChecks)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("%s must converge under %s, but:\n%s", sc.Name, mix, cx.Report())
	}
	if !testing.Short() {
		assert.Equal(t, ciChecks, res.Runs)
	}
}

// requireFails asserts that the search finds a failure with the verdict,
// shrunk to at most maxFaults faults, and returns it.
func requireFails(t *testing.T, sc properties.Scenario, mix faults.Mix, v properties.Verdict, maxFaults int) *properties.Counterexample {
	t.Helper()
	res := search(t, sc, mix, failChecks)
	cx := res.Counterexample
	require.NotNil(t, cx, "%s must fail under %s, but %d runs passed", sc.Name, mix, res.Runs)
	assert.Equal(t, v, cx.Failure.Verdict, cx.Report())
	assert.LessOrEqual(t, len(cx.Schedule), maxFaults, "shrunk schedule:\n%s", cx.Report())
	return cx
}

func TestLevelTriggeredWithResyncConverges(t *testing.T) {
	sc := scenarios.ReplicaSetLevel()
	for _, mix := range []faults.Mix{
		{faults.KindDrop},
		{faults.KindRestart},
		{faults.KindEdit},
		{faults.KindDrop, faults.KindRestart},
		{faults.KindDrop, faults.KindEdit},
		{faults.KindRestart, faults.KindEdit},
		{faults.KindDrop, faults.KindRestart, faults.KindEdit},
	} {
		t.Run(mix.String(), func(t *testing.T) { requireConverges(t, sc, mix) })
	}
}

func TestEdgeTriggeredFailsUnderDropAlone(t *testing.T) {
	cx := requireFails(t, scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}, properties.GoalUnmet, 2)
	assert.Positive(t, cx.Schedule.Count(faults.KindDrop), "the drop is what it takes")
}

func TestEdgeTriggeredFailsUnderRestartAlone(t *testing.T) {
	cx := requireFails(t, scenarios.ReplicaSetEdge(), faults.Mix{faults.KindRestart}, properties.GoalUnmet, 2)
	assert.Positive(t, cx.Schedule.Count(faults.KindRestart))
}

// TestEdgeTriggeredControlGroupConverges is trap 4 in docs/design.md: without faults,
// with the user rescaling and chaos deleting pods, the edge-triggered
// controller converges, so that its failures are the faults' doing.
func TestEdgeTriggeredControlGroupConverges(t *testing.T) {
	requireConverges(t, scenarios.ReplicaSetEdge(), nil)
}

func TestLevelTriggeredWithoutResyncFailsUnderDrop(t *testing.T) {
	cx := requireFails(t, scenarios.ReplicaSetNoResync(), faults.Mix{faults.KindDrop}, properties.GoalUnmet, 2)
	assert.Contains(t, cx.Report(), "never saw", "the diagnosis names the event it missed")
}

func TestSearchLeavesNoFailFiles(t *testing.T) {
	requireFails(t, scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}, properties.GoalUnmet, 2)
	_, err := os.Stat("testdata/rapid")
	assert.True(t, os.IsNotExist(err), "an expected failure must not leave a rapid fail file behind (trap 7 in docs/design.md)")
}

func TestCounterexampleReplaysExactly(t *testing.T) {
	sc := scenarios.ReplicaSetEdge()
	cx := requireFails(t, sc, faults.Mix{faults.KindRestart}, properties.GoalUnmet, 2)
	out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{})
	require.NoError(t, err)
	assert.False(t, diverged)
	require.NotNil(t, out.Failure)
	assert.Equal(t, cx.Failure.Report(cx.Schedule), out.Failure.Report(out.Schedule))
	assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
}

func TestReportEndsWithTheReplayCommand(t *testing.T) {
	// Rapid's finding names its seed in the Program's line.
	res, err := properties.Search(scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}, properties.WithoutPlan(properties.SearchOptions{Test: t, Checks: failChecks, Seed: 1}))
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	report := res.Counterexample.Report()
	assert.Contains(t, report, "ReplicaSet default/web wants")
	assert.Contains(t, report, "fault schedule")
	assert.Regexp(t, `replay: go run ./cmd/fuzzrun -scenario replicaset-edge -faults drop -seed \d+\n$`, report)

	// A planned run's finding, which one run of a seed does not make,
	// names the go test line that searches from the seed again.
	cx := requireFails(t, scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}, properties.GoalUnmet, 2)
	require.Positive(t, cx.Planned)
	assert.Regexp(t, `replay: go test ./properties -run '\^TestReportEndsWithTheReplayCommand\$' -rapid.seed=1\n$`, cx.Report())
}

// TestSearchRejectsAnImpossibleMix: a rival needs declared rival
// targets. (An edit no longer does: a scenario without edit targets
// deletes its controllers' children, TestAnUndeclaredEditFindsAnUnwatchedChild.)
func TestSearchRejectsAnImpossibleMix(t *testing.T) {
	sc := scenarios.ReplicaSetEdge()
	sc.Rivals = nil
	_, err := properties.Search(sc, faults.Mix{faults.KindRival}, properties.SearchOptions{Test: t, Checks: 1})
	assert.ErrorContains(t, err, "rival needs rival targets")
}

func TestCheckRunsUnderGoTest(t *testing.T) {
	properties.Check(t, scenarios.ReplicaSetLevel(), faults.Mix{faults.KindDrop, faults.KindRestart})
}
