package schemaops_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameChoicesSameTrace: runs through the CRD admission chain, rejected
// writes included, replay byte for byte.
func TestSameChoicesSameTrace(t *testing.T) {
	w := world(t)
	for _, sc := range []properties.Scenario{w.SyncScenario("sync-replace", true), w.BatchScenario("batch-uncapped", false, true)} {
		sched := faults.Schedule{{At: 2, Fault: faults.Drop{Controller: "batch", Resource: "Pod"}}}
		if sc.Name == "sync-replace" {
			sched = faults.Schedule{{At: 2, Fault: faults.Restart{Controller: "gitops", Down: 2}}}
		}
		var hashes []string
		for range 2 {
			out, _, err := properties.Replay(sc, sched, []int{1, 0, 2, 1, 1, 0, 3}, properties.RunOptions{})
			require.NoError(t, err)
			hashes = append(hashes, out.Cluster.Trace().Hash())
		}
		assert.Equal(t, hashes[0], hashes[1], sc.Name)
	}
}
