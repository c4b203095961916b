package replicaset_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameChoicesSameTrace is trap 6 in docs/design.md for the integration: a run of
// a controller-runtime reconciler replays byte for byte from its schedule
// and choices, so rapid can shrink and a seed can replay.
func TestSameChoicesSameTrace(t *testing.T) {
	sc := replicaset.Scenario("replicaset", converter(t), replicaset.Options{Scale: true, GenerateName: true})
	sched := faults.Schedule{
		{At: 2, Fault: faults.Drop{Controller: "replicaset", Resource: "Pod"}},
		{At: 4, Fault: faults.Restart{Controller: "replicaset", Down: 3}},
		{At: 5, Fault: faults.Edit{Target: faults.EditTarget{Resource: "ReplicaSet", Path: "spec.replicas", Max: 5}, Value: 4}},
	}
	choices := []int{3, 1, 4, 1, 5, 0, 2, 6, 5, 3, 5, 0, 0, 2, 1, 3, 0, 4, 1, 2, 0, 0, 1}
	var hashes []string
	for range 3 {
		out, _, err := properties.Replay(sc, sched, choices, properties.RunOptions{})
		require.NoError(t, err)
		require.Nil(t, out.Failure)
		hashes = append(hashes, out.Cluster.Trace().Hash())
		assert.Greater(t, countReconciles(out.Cluster), 3)
	}
	assert.Equal(t, hashes[0], hashes[1])
	assert.Equal(t, hashes[0], hashes[2])
}

func countReconciles(c *model.Cluster) int {
	n := 0
	for _, r := range c.Trace().Records {
		if r.Kind == model.ActReconcile {
			n++
		}
	}
	return n
}
