package scenarios_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimeTravelFindsTheNameReuseBug: the controller that deletes volumes
// by name is found by the timetravel fault alone; the shrunk schedule is
// one time travel, and the diagnosis says how far behind the server was,
// which old App it saw, and that its cache still held the recreated App's
// old deletion timestamp when it deleted the volumes.
func TestTimeTravelFindsTheNameReuseBug(t *testing.T) {
	res, err := properties.Search(scenarios.TimeTravel(), faults.Mix{faults.KindTimeTravel}, properties.SearchOptions{Test: t, Checks: 100, Seed: 1})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "must break the invariant within %d runs", res.Runs)
	report := cx.Report()
	assert.Equal(t, properties.InvariantBroken, cx.Failure.Verdict, report)
	assert.Equal(t, faults.Faithful, cx.Schedule.Class(), report)
	require.Len(t, cx.Schedule, 1, report)
	travel, ok := cx.Schedule[0].Fault.(faults.TimeTravel)
	require.True(t, ok, report)
	assert.Contains(t, cx.Failure.Summary, "deletes-by-name deleted Volume default/db-data-")
	assert.Regexp(t, `deletes-by-name relisted from a server \d+ versions? behind: saw App default/db's old state [^\n]*since deleted and recreated as uid-\d+`, report)
	if travel.Landmark == 0 {
		assert.Contains(t, report, "relisted from a server "+strconv.FormatUint(travel.Behind, 10)+" version", report)
	} else {
		// A landmark (seed 1 draws one since time travel reaches past 12
		// versions) names no distance; the diagnosis says how far it was.
		assert.Contains(t, report, "it relists from a server at landmark "+strconv.Itoa(travel.Landmark)+" ", report)
	}
	assert.Contains(t, report, "when it acted, its cache still held App default/db's old state deleting since t=", report)
}

// TestReferenceScenariosSurviveTimeTravel: every catalog scenario that
// must converge under some faults, and declares no failure under timetravel,
// keeps converging, and keeps its invariants, when its controllers relist
// from a server behind. (replicaset-expectations declares that it breaks
// its invariant then.)
func TestReferenceScenariosSurviveTimeTravel(t *testing.T) {
	const checks = 40
	for _, sc := range scenarios.All() {
		converges, declared := false, false
		for _, e := range sc.Expect {
			converges = converges || (e.Fails == "" && len(e.Faults) > 0)
			declared = declared || (e.Fails != "" && e.Faults.Has(faults.KindTimeTravel))
		}
		if !converges || declared {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			res, err := properties.Search(sc, faults.Mix{faults.KindTimeTravel}, properties.SearchOptions{Test: t, Checks: checks, Seed: 1})
			require.NoError(t, err)
			if cx := res.Counterexample; cx != nil {
				t.Fatalf("must survive timetravel, but:\n%s", cx.Report())
			}
		})
	}
}

// TestTimeTravelFarIsFoundWithinAHundredRuns: the App controller whose
// stale read needs a time travel more than 48 versions back
// (timetravel-far) breaks its invariant within 100 runs from every seed
// 1 to 10, with one time travel that went that far back; its fixed twin
// keeps the invariant. A draw of at most 12 versions found it from none
// of these seeds.
func TestTimeTravelFarIsFoundWithinAHundredRuns(t *testing.T) {
	var runs []int
	for seed := uint64(1); seed <= 10; seed++ {
		res, err := properties.Search(scenarios.TimeTravelFar(), faults.Mix{faults.KindTimeTravel}, properties.SearchOptions{Test: t, Checks: 100, Seed: seed})
		require.NoError(t, err)
		cx := res.Counterexample
		require.NotNil(t, cx, "seed %d: must break the invariant within %d runs", seed, res.Runs)
		report := cx.Report()
		assert.Equal(t, properties.InvariantBroken, cx.Failure.Verdict, report)
		assert.Contains(t, cx.Failure.Summary, "deletes-by-name-after-setup deleted Volume default/db-data-", report)
		require.Len(t, cx.Schedule, 1, report)
		require.IsType(t, faults.TimeTravel{}, cx.Schedule[0].Fault, report)
		m := regexp.MustCompile(`relisted from a server (\d+) versions behind`).FindStringSubmatch(report)
		require.NotNil(t, m, report)
		behind, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		assert.Greater(t, behind, 48, report)
		runs = append(runs, res.Runs)
	}
	t.Logf("runs to the first failure, seeds 1-10: %v", runs)
}
