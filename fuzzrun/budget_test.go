package fuzzrun_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestATinyBudgetLeavesRowsNotShownNotUnexpected: under a budget far too
// small, a row that must fail and never does is "not shown within its
// budget" once its own cap past the shared budget is spent (30 times
// -duration of worker time): exit 3, not a wrong verdict, and the rows that must
// converge stay ok (issue 37, item 2). The row claims a level-triggered
// controller fights under drop, which it never does, so no run can show
// it however fast the machine.
func TestATinyBudgetLeavesRowsNotShownNotUnexpected(t *testing.T) {
	never := scenarios.ReplicaSetLevel()
	never.Name = "never-fails"
	never.Expect = []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}, Fails: properties.Fight}}
	converges := scenarios.ReplicaSetLevel()
	converges.Expect = []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}}}
	code, out, stderr := runWith([]properties.Scenario{never, converges}, "-json", "-duration", "1ms", "-workers", "1")
	require.Equal(t, fuzzrun.ExitNotShown, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	evs := events(t, out)
	require.Len(t, evs["row"], 2)
	for _, row := range evs["row"] {
		if row["scenario"] == "never-fails" {
			assert.Equal(t, false, row["ok"], row)
			assert.Equal(t, true, row["not_shown"], row)
			assert.Positive(t, row["runs"], row)
		} else {
			assert.Equal(t, true, row["ok"], row)
			assert.Nil(t, row["not_shown"], row)
		}
	}
	assert.InDelta(t, fuzzrun.ExitNotShown, evs["summary"][0]["exit_code"], 0)

	code, out, _ = runWith([]properties.Scenario{never, converges}, "-duration", "1ms", "-workers", "1")
	assert.Equal(t, fuzzrun.ExitNotShown, code)
	assert.Contains(t, out, "NOT SHOWN")
	assert.NotContains(t, out, "UNEXPECTED")
}

// TestAWrongVerdictOutranksNotShown: a row that failed as it must not
// makes the campaign exit 1 even beside a row not shown.
func TestAWrongVerdictOutranksNotShown(t *testing.T) {
	wrong := scenarios.ReplicaSetEdge()
	wrong.Expect = []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}}}
	code, out, _ := runWith([]properties.Scenario{wrong, scenarios.ReplicaSetNoResync()}, "-faults", "drop", "-seed", "6", "-runs", "1", "-workers", "1")
	assert.Equal(t, fuzzrun.ExitUnexpected, code, out)
	assert.Contains(t, out, "UNEXPECTED")
	assert.Contains(t, out, "NOT SHOWN")
	assert.Contains(t, out, "besides the wrong verdicts above, 1 row was not shown within its budget")
}
