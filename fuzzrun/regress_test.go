package fuzzrun_test

import (
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEdgeRestartFindingIsFixed is the one-line regression test a finding
// becomes, here against replicaset-edge with its controller fixed.
func TestEdgeRestartFindingIsFixed(t *testing.T) {
	fuzzrun.RequireFixed(t, edgeFinding, fixedEdge()...)
}

func TestFixedFailsWhileTheBugIsThere(t *testing.T) {
	err := fuzzrun.Fixed(edgeFinding, scenarios.All()...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the bug is still there: the recorded run fails again")
	assert.Contains(t, err.Error(), "ReplicaSet default/web wants 3 pods, has 6")
}

func TestFixedSaysWhatIsWrongWithItsInput(t *testing.T) {
	err := fuzzrun.Fixed("testdata/missing.json", scenarios.All()...)
	assert.ErrorContains(t, err, "cannot read finding")
	err = fuzzrun.Fixed(edgeFinding, scenarios.ReplicaSetLevel())
	assert.ErrorContains(t, err, `is for scenario "replicaset-edge", which is not among replicaset-level`)
}

// TestAHangIsFixedWhenItsSeedFinishes: a hang replays by its seed; once
// the run finishes, the hang is gone, even if the run fails otherwise.
func TestAHangIsFixedWhenItsSeedFinishes(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runWith([]properties.Scenario{hanging()}, "-runs", "1", "-workers", "2", "-run-timeout", "1s", "-out", dir)
	require.Equal(t, fuzzrun.ExitUnexpected, code, stderr)
	_, path := onlyFinding(t, dir)
	finishes := broken("hanging", func() {}) // reconciles without doing anything
	fuzzrun.RequireFixed(t, path, finishes)
}
