package fuzzruntest_test

import (
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/fuzzrun/fuzzruntest"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFuzzrun is this test binary's fuzzrun, over the edge-triggered
// ReplicaSet controller, whose rows all fail within a few seeds.
func TestFuzzrun(t *testing.T) { fuzzrun.MainTest(t, scenarios.ReplicaSetEdge()) }

// TestBuildRunReplay builds this package's test binary with go test -c,
// runs a campaign through it with worker processes, and replays its
// findings twice each. Half of its first seeds are the rows' planned
// runs (docs/design.md, "The plan in campaigns"), so 40 runs give
// rapid's draws the 20 that show every row.
func TestBuildRunReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	bin := fuzzruntest.Build(t, ".", "TestFuzzrun")
	dir := t.TempDir()
	res := fuzzruntest.Run(t, bin, "-runs", "40", "-workers", "2", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, res.Code, res)
	assert.Contains(t, res.Stdout, "replicaset-edge")
	assert.Equal(t, len(fuzzruntest.Findings(t, dir)), fuzzruntest.RequireReplaysByteForByte(t, bin, dir))
	assert.GreaterOrEqual(t, len(fuzzruntest.Findings(t, dir)), 3, "one finding per row at least: %s", res)

	skipped := fuzzruntest.Run(t, bin)
	assert.Equal(t, 0, skipped.Code, skipped)
}
