package fuzzrun_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edgeFinding is a finding of a campaign: the edge-triggered ReplicaSet
// controller, restarted, creates a second set of pods.
const edgeFinding = "testdata/finding-replicaset-edge-goal-unmet-6122bddfe348.json"

// The first seeds at which replicaset-edge fails under restart, with
// random search and with PCT.
const (
	edgeSeed    = "3"
	pctEdgeSeed = "17"
)

func TestAFindingFileRoundTrips(t *testing.T) {
	data, err := os.ReadFile(edgeFinding)
	require.NoError(t, err)
	f, err := fuzzrun.ParseFinding(data)
	require.NoError(t, err)
	assert.Equal(t, "replicaset-edge", f.Scenario)
	assert.Equal(t, "goal-unmet", f.Verdict)
	assert.Len(t, f.Schedule, 1)
	out, err := f.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(out), "the file is what Marshal writes")
}

// FuzzParseFinding: ParseFinding never panics, and what it accepts it
// writes back in a form it reads as the same finding. The seed corpus is
// in testdata/fuzz/FuzzParseFinding; `go test` runs it, `go test -fuzz
// FuzzParseFinding` explores from it.
func FuzzParseFinding(f *testing.F) {
	data, err := os.ReadFile(edgeFinding)
	require.NoError(f, err)
	f.Add(data)
	withTransitions, err := os.ReadFile("testdata/finding-cache-stale-tier-history-dependent-3f19e569ca2c.json")
	require.NoError(f, err)
	f.Add(withTransitions)
	f.Fuzz(func(t *testing.T, data []byte) {
		fd, err := fuzzrun.ParseFinding(data)
		if err != nil {
			return
		}
		out, err := fd.Marshal()
		require.NoError(t, err)
		back, err := fuzzrun.ParseFinding(out)
		require.NoError(t, err, "it parsed\n%s\nbut not as written:\n%s", data, out)
		again, err := back.Marshal()
		require.NoError(t, err)
		assert.True(t, bytes.Equal(out, again), "written twice differently:\n%s\n%s", out, again)
	})
}
