package applyfight_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/applyfight"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameChoicesSameTrace: runs with server-side apply replay byte for
// byte (managed fields carry virtual times, never the wall clock).
func TestSameChoicesSameTrace(t *testing.T) {
	conv, err := applyfight.Converter()
	require.NoError(t, err)
	sc := applyfight.Scenario("apply-handover", conv, applyfight.Options{})
	sched := faults.Schedule{
		{At: 1, Fault: faults.Drop{Controller: "autoscaler", Resource: "Deployment"}},
		{At: 3, Fault: faults.Restart{Controller: "gitops", Down: 2}},
	}
	choices := []int{2, 1, 0, 3, 1, 2, 0, 1, 1, 0, 2, 1}
	var hashes []string
	for range 3 {
		out, _, err := properties.Replay(sc, sched, choices, properties.RunOptions{})
		require.NoError(t, err)
		require.Nil(t, out.Failure)
		hashes = append(hashes, out.Cluster.Trace().Hash())
	}
	assert.Equal(t, hashes[0], hashes[1])
	assert.Equal(t, hashes[0], hashes[2])
}
